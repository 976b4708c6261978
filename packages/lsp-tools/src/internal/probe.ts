import { spawn } from 'node:child_process';
import type { LanguageServerConfig } from '../types.js';
import { conciseError } from './positions.js';

const PROBE_TIMEOUT_MS = 10_000;

/**
 * Runs a server's version command (`versionArgs`) and reports whether it works: exit code 0
 * within 10 s. The detail is the version line, or the cause of the failure without backtrace.
 */
export function probeVersion(
  command: string,
  config: LanguageServerConfig,
  cwd: string,
): Promise<{ ok: boolean; detail: string }> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(command, config.versionArgs ?? ['--version'], {
      cwd,
      env: { ...process.env, ...config.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ ok: false, detail: `\`${config.command} --version\` did not finish within 10 s` });
    }, PROBE_TIMEOUT_MS);
    const collect = (chunk: Buffer): void => {
      if (output.length < 20_000) output += chunk.toString('utf8');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ ok: false, detail: error.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const text = conciseError(output);
      if (code === 0) resolve({ ok: true, detail: text.split('; ')[0] || 'ok' });
      else
        resolve({
          ok: false,
          detail: `it exited with ${signal ?? `code ${code}`}${text ? `: ${text}` : ''}`,
        });
    });
  });
}
