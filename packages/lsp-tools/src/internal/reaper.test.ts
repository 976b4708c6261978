import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { killOnProcessExit } from './reaper.js';

describe('killOnProcessExit', () => {
  it("removes the server's private temporary folder when the server exits", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'spine-lsp-'));
    // What typescript-language-server leaves there: a folder for its cancellation files.
    const inner = join(folder, '0123456789abcdef0123456789abcdef');
    const child = spawn(
      process.execPath,
      ['-e', `require('node:fs').mkdirSync(${JSON.stringify(inner)}); setInterval(() => {}, 1000)`],
      { stdio: 'ignore' },
    );
    killOnProcessExit(child, folder);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    for (let waited = 0; !existsSync(inner) && waited < 30_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(existsSync(inner)).toBe(true);
    writeFileSync(join(inner, 'tscancellation1'), '');
    child.kill('SIGKILL');
    await exited;
    expect(existsSync(folder)).toBe(false);
  }, 60_000);
});
