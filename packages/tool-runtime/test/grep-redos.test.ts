// grep must not be able to freeze the process: catastrophic patterns return within the tool
// timeout while other tools keep running, and abort and timeout stop a long search.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolResultBody } from '@spine/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRuntime, type ToolRuntime } from '../src/runtime.js';
import { createGrepTool } from '../src/tool-grep.js';
import { createReadTool } from '../src/tool-read.js';
import { makeTempDir, toolCall } from './helpers.js';

const TOOL_TIMEOUT_MS = 20_000;
let temp: { dir: string; cleanup: () => void };
let runtime: ToolRuntime;

beforeAll(() => {
  temp = makeTempDir('spine-grep-redos-');
  const evil = `${'a'.repeat(29)}!`;
  writeFileSync(join(temp.dir, 'evil.txt'), `${evil}\n${'a'.repeat(5000)}!\n${'x'.repeat(40)}y\n`);
  // About 1.5 MB of lines that almost match, so a backtracking engine would never finish.
  writeFileSync(join(temp.dir, 'big.txt'), `${`${'a'.repeat(60)}!\n`.repeat(25_000)}`);
  writeFileSync(join(temp.dir, 'notes.md'), 'read me while grep runs\n');
  runtime = createToolRuntime({
    cwd: temp.dir,
    approval: 'never-ask',
    sandboxBackend: null,
    tools: [
      createGrepTool({ cwd: temp.dir, timeoutMs: TOOL_TIMEOUT_MS }),
      createReadTool({ cwd: temp.dir }),
    ],
  });
});
afterAll(() => temp.cleanup());

/** Runs `read` and `grep` in one batch, with a ticker proving the event loop never stalls. */
async function grepBesideRead(args: object): Promise<{
  grep: ToolResultBody;
  read: ToolResultBody;
  longestStallMs: number;
  elapsedMs: number;
}> {
  let last = Date.now();
  let longestStallMs = 0;
  const ticker = setInterval(() => {
    const now = Date.now();
    longestStallMs = Math.max(longestStallMs, now - last);
    last = now;
  }, 5);
  const started = Date.now();
  const [read, grep] = await runtime.run([
    toolCall('read', { path: 'notes.md' }),
    toolCall('grep', args),
  ]);
  clearInterval(ticker);
  return { grep: grep!, read: read!, longestStallMs, elapsedMs: Date.now() - started };
}

describe('grep on RE2', () => {
  it.each([
    '^(a+)+$',
    '(a|aa)+$',
    '(.*a){20}',
    '(a*)*b',
    '(x+x+)+y',
    '^(\\w+\\s?)*$',
    '(a|a?)+$',
    '([a-zA-Z]+)*$',
    '^(([a-z])+.)+[A-Z]([a-z])+$',
    '(.*){1,32000}[bc]',
    '(?:a+)+(?:a+)+(?:a+)+!x',
  ])(
    'the catastrophic pattern %s returns within the tool timeout while a read completes',
    async (pattern) => {
      const { grep, read, longestStallMs, elapsedMs } = await grepBesideRead({ pattern });
      expect(read.outcome).toBe('ok');
      expect(read.content).toMatch(/read me while grep runs/);
      expect(['ok', 'error']).toContain(grep.outcome);
      expect(elapsedMs).toBeLessThan(TOOL_TIMEOUT_MS);
      // The old engine blocked the event loop for 36 s on the first pattern; generous bound on a loaded machine.
      expect(longestStallMs).toBeLessThan(5_000);
    },
    60_000,
  );

  it('finds what a backtracking engine would time out on', async () => {
    const { grep } = await grepBesideRead({ pattern: '^(a+)+!$', path: 'evil.txt' });
    expect(grep.outcome).toBe('ok');
    expect(grep.content.split('\n')).toEqual([
      `evil.txt:1:${'a'.repeat(29)}!`,
      `evil.txt:2:${'a'.repeat(500)}`,
    ]);
  });

  it.each([
    ['(a)\\1', /invalid escape sequence: \\1/],
    ['a(?=b)', /invalid perl operator: \(\?=/],
    ['(?<!x)a', /invalid perl operator/],
    ['[', /missing \]/],
    ['a{2000}', /invalid repetition size/],
  ])('the unsupported or bad pattern %s is a clear tool error', async (pattern, detail) => {
    const [result] = await runtime.run([toolCall('grep', { pattern })]);
    expect(result).toMatchObject({ isError: true, outcome: 'error' });
    expect(result!.content).toMatch(/^Invalid regular expression/);
    expect(result!.content).toMatch(detail);
    expect(result!.content).toMatch(/RE2 syntax/);
  });

  it('tells the model about the syntax in the tool description', () => {
    const spec = runtime.specs().find((candidate) => candidate.name === 'grep')!;
    expect(spec.description).toMatch(/no backreferences.*no lookaround/);
  });

  it('an abort stops a long search', async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 50);
    const [result] = await runtime.run(
      [toolCall('grep', { pattern: '(.{0,100}){10}x', maxMatches: 1000 })],
      { signal: controller.signal },
    );
    expect(result!.outcome).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(TOOL_TIMEOUT_MS);
  }, 60_000);

  it('the tool timeout stops a long search', async () => {
    const files = makeTempDir('spine-grep-timeout-');
    try {
      const chunk = `${'ab'.repeat(40)}\n`.repeat(25_000);
      for (let index = 0; index < 24; index++)
        writeFileSync(join(files.dir, `f${index}.txt`), chunk);
      // The RE2 path itself (ripgrep, when installed, would rule these files out at once).
      const slow = createToolRuntime({
        cwd: files.dir,
        approval: 'never-ask',
        sandboxBackend: null,
        tools: [createGrepTool({ cwd: files.dir, timeoutMs: 200, ripgrepPath: null })],
      });
      const [result] = await slow.run([toolCall('grep', { pattern: '(.{0,100}){10}x' })]);
      expect(result!.outcome).toBe('timeout');
      expect(result!.content).toMatch(/timed out after 200 ms/);
    } finally {
      files.cleanup();
    }
  }, 60_000);
});
