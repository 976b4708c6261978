import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEvent } from '@spine/protocol';
import { createJsonlStore } from '@spine/session-log';
import { beforeAll, describe, expect, it } from 'vitest';
import { APP_DIR, tempFolder } from './run-cli.js';

// A long session written straight through the store: 50,000 events of realistic text (code with
// newlines and quotes, tool output, Unicode), about 80 MB of JSONL.
const EVENTS = 50_000;
const AT = '2026-12-01T12:00:00.000Z';

function toolOutput(turn: number): string {
  const lines: string[] = [];
  for (let line = 0; line < 64; line++) {
    lines.push(
      `src/module-${turn % 97}/file-${line}.ts:${line + 1}: export const value${line} = "turn ${turn} — naïve café ✓ ${'x'.repeat(turn % 13)}";`,
    );
  }
  return lines.join('\n');
}

async function writeSession(dir: string, id: string, events: number): Promise<void> {
  const store = createJsonlStore({ dir, fsync: 'never' });
  const header: SessionEvent = {
    seq: 1,
    type: 'session/header',
    at: AT,
    body: { formatVersion: 1, sessionId: id, createdAt: AT, cwd: '/work', model: 'deepseek/x' },
  };
  const opened = await store.create(header);
  let seq = 1;
  let batch: SessionEvent[] = [];
  const add = (type: string, body: unknown, extra: Partial<SessionEvent> = {}): void => {
    batch.push({ seq: ++seq, type, at: AT, body, ...extra } as SessionEvent);
  };
  for (let turn = 1; seq + 5 <= events; turn++) {
    add('turn/start', {}, { turn });
    add(
      'user/message',
      { content: `Fix "bug" ${turn}\nin src/a.ts`, source: 'user' },
      { turn, surfaceOp: { op: 'append' } },
    );
    const call = {
      type: 'tool-call',
      id: `c${turn}`,
      name: 'grep',
      arguments: `{"pattern":"value${turn}"}`,
    };
    const usage = {
      inputTokens: 900,
      cacheReadTokens: 800,
      cacheWriteTokens: 0,
      outputTokens: 40,
      costUsd: 0.0001,
    };
    add(
      'assistant/message',
      { content: [call], finishReason: 'tool-calls', usage },
      { turn, step: 1, surfaceOp: { op: 'append' } },
    );
    add(
      'tool/result',
      { toolCallId: `c${turn}`, toolName: 'grep', content: toolOutput(turn), isError: false },
      { turn, step: 1, surfaceOp: { op: 'append' } },
    );
    add('turn/end', { reason: 'completed' }, { turn });
    if (batch.length >= 1000) {
      opened.append(batch);
      batch = [];
    }
  }
  while (seq < events) add('turn/start', {}, { turn: 0 });
  opened.append(batch);
  await opened.flush();
  await opened.close();
}

interface HeapReport {
  code: number;
  before: number;
  peak: number;
}

function probe(command: string, dir: string): HeapReport {
  const report = join(dir, `${command}.json`);
  const result = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      // A small nursery: short-lived garbage is collected early, so the peak shows what is held.
      '--max-semi-space-size=2',
      join(APP_DIR, 'test', 'heap-probe.mjs'),
      command,
      dir,
      'long',
      'short',
      report,
    ],
    { cwd: APP_DIR, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: 240_000 },
  );
  if (result.status !== 0)
    throw new Error(`heap probe ${command} exited ${result.status}: ${result.stderr}`);
  return JSON.parse(readFileSync(report, 'utf8')) as HeapReport;
}

describe('show and export of a long session', { timeout: 600_000 }, () => {
  let dir = '';
  let size = 0;
  beforeAll(async () => {
    dir = tempFolder('spine-heap-');
    await writeSession(dir, 'long', EVENTS);
    await writeSession(dir, 'short', 40);
    size = statSync(join(dir, 'long.jsonl')).size;
    expect(size).toBeGreaterThan(50_000_000);
  }, 300_000);

  it('holds a fraction of the log while the whole-load transcript held it all', () => {
    // The control: the measurement sees a session held in memory.
    const whole = probe('whole-load', dir);
    expect(whole.peak - whole.before).toBeGreaterThan(size / 2);
    for (const command of ['show', 'show-events', 'show-json', 'export-md', 'export-json']) {
      const streamed = probe(command, dir);
      expect(streamed.code, command).toBe(0);
      const growth = streamed.peak - streamed.before;
      // Measured at 3-12 MB for a 72 MB log (the whole load: 145 MB); a chunk of output, with
      // the events behind it, is what is held.
      expect(growth, `${command}: heap grew ${growth} bytes for a ${size}-byte log`).toBeLessThan(
        size / 4,
      );
    }
  });
});
