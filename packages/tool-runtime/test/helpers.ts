import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolCallPart, ToolResultBody, ToolRunEvent } from '@spine/protocol';
import type { ToolRuntime } from '../src/index.js';

/** A fresh real directory; remove it with `cleanup`. */
export function makeTempDir(prefix = 'spine-tr-'): { dir: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

let counter = 0;

/** Builds a tool call part with a unique id. */
export function toolCall(name: string, args: unknown): ToolCallPart {
  counter++;
  return {
    type: 'tool-call',
    id: `call_${counter}`,
    name,
    arguments: typeof args === 'string' ? args : JSON.stringify(args),
  };
}

/** Runs one call and returns its result. */
export async function runOne(
  runtime: ToolRuntime,
  name: string,
  args: unknown,
  signal?: AbortSignal,
): Promise<ToolResultBody> {
  const [result] = await runtime.run([toolCall(name, args)], signal ? { signal } : {});
  return result!;
}

/** Runs calls and records every event. */
export async function runRecorded(
  runtime: ToolRuntime,
  calls: ToolCallPart[],
  options: { signal?: AbortSignal } = {},
): Promise<{ results: ToolResultBody[]; events: ToolRunEvent[] }> {
  const events: ToolRunEvent[] = [];
  const results = await runtime.run(calls, { ...options, onEvent: (event) => events.push(event) });
  return { results, events };
}

/** Process ids whose command line contains `marker` (scans /proc). */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(marker)) found.push(Number(name));
    } catch {
      // process ended while scanning
    }
  }
  return found;
}
