import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, runOne } from '../test/helpers.js';
import { createToolRuntime, type ToolRuntime } from './runtime.js';
import { createBashTool } from './tool-bash.js';

let temp: { dir: string; cleanup: () => void };
let runtime: ToolRuntime;

beforeAll(() => {
  temp = makeTempDir('spine-bash-');
  runtime = createToolRuntime({
    cwd: temp.dir,
    sandbox: 'danger-full-access',
    sandboxBackend: null,
    approval: 'never-ask',
    tools: [createBashTool({ cwd: temp.dir, maxOutputChars: 1000, defaultTimeoutMs: 5000 })],
  });
});
afterAll(() => temp.cleanup());

describe('bash', () => {
  it('keeps the head and the tail of long output and records the original length', async () => {
    const result = await runOne(runtime, 'bash', { command: 'seq 1 20000' });
    expect(result.content.startsWith('1\n2\n3\n')).toBe(true);
    expect(result.content).toMatch(/\[… \d+ characters of output omitted …\]/);
    expect(result.content.trimEnd().endsWith('19999\n20000')).toBe(true);
    expect(result.meta).toMatchObject({ truncated: true, exitCode: 0 });
    expect(result.meta?.originalLength).toBe(
      Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join('').length,
    );
  });

  it('stops a command at its timeout and says so', async () => {
    const result = await runOne(runtime, 'bash', {
      command: 'echo before; sleep 5; echo after',
      timeoutMs: 200,
    });
    expect(result.isError).toBe(true);
    expect(result.content).toBe('before\n\n[timed out after 200 ms; the process group was killed]');
  });

  it('runs in a working directory inside the workspace and refuses one outside', async () => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(`${temp.dir}/pkg`);
    expect((await runOne(runtime, 'bash', { command: 'pwd', workdir: 'pkg' })).content).toBe(
      `${temp.dir}/pkg\n`,
    );
    const outside = await runOne(runtime, 'bash', { command: 'pwd', workdir: '..' });
    expect(outside.content).toMatch(/^Path refused/);
  });

  it('reports a non-zero exit code as an error with the code', async () => {
    const result = await runOne(runtime, 'bash', { command: 'echo oops >&2; exit 7' });
    expect(result).toMatchObject({ isError: true, outcome: 'error' });
    expect(result.content).toBe('oops\n\n[exit code 7]');
    expect(result.meta?.exitCode).toBe(7);
  });

  it('hands commands only the core environment by default: no credentials, no other variables', async () => {
    process.env.SPINE_TEST_API_KEY = 'sk-very-secret';
    process.env.SPINE_TEST_PLAIN = 'visible';
    try {
      const tool = createBashTool({ cwd: temp.dir });
      const local = createToolRuntime({
        cwd: temp.dir,
        sandbox: 'danger-full-access',
        sandboxBackend: null,
        approval: 'never-ask',
        tools: [tool],
      });
      const result = await runOne(local, 'bash', {
        command:
          'echo "[$SPINE_TEST_API_KEY] [$SPINE_TEST_PLAIN] [$(test -n "$PATH" && echo path)]"',
      });
      expect(result.content).toBe('[] [] [path]\n');
    } finally {
      delete process.env.SPINE_TEST_API_KEY;
      delete process.env.SPINE_TEST_PLAIN;
    }
  });

  it('refuses a command with a NUL character', async () => {
    const result = await runOne(runtime, 'bash', { command: 'echo a\u0000b' });
    expect(result.content).toMatch(/NUL character/);
  });
});
