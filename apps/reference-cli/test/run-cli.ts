import { type SpawnOptions, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';

// Temp folders made by these helpers, removed when the test file that made them ends.
const created: string[] = [];
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temp folder removed after the current test file. */
export function tempFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  created.push(dir);
  return dir;
}

/** The app directory and the `spine` binary, run from sources (no build needed). */
export const APP_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
export const BIN = join(APP_DIR, 'bin', 'spine.js');

/** A fresh copy of the example workspace in a temp folder named after `prefix`. */
export function exampleWorkspace(prefix: string): string {
  const workspace = join(tempFolder(prefix), 'workspace');
  cpSync(join(APP_DIR, 'examples', 'workspace'), workspace, { recursive: true });
  return workspace;
}

/** The `--model` and `--base-url` flags that point the CLI at a scripted model server. */
export function modelArgs(baseUrl: string): string[] {
  return ['--model', 'openai-compatible/deepseek-v4-flash', '--base-url', baseUrl];
}

/** What one CLI invocation produced. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** An isolated environment: config home and session dir in a temp folder, no provider keys. */
export function isolatedEnv(extra: Record<string, string> = {}): {
  env: NodeJS.ProcessEnv;
  root: string;
  sessionDir: string;
} {
  const root = tempFolder('spine-cli-');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: root,
    SPINE_CONFIG_HOME: join(root, 'config'),
    SPINE_SESSION_DIR: join(root, 'sessions'),
    SPINE_FROM_SOURCE: '1',
    NO_COLOR: '1',
    ...extra,
  };
  return { env, root, sessionDir: join(root, 'sessions') };
}

/** Runs `spine <args>` to completion. */
export function runCli(
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const spawnOptions: SpawnOptions = {
      cwd: options.cwd ?? APP_DIR,
      env: options.env,
      stdio: 'pipe',
    };
    const child = spawn(process.execPath, [BIN, ...args], spawnOptions);
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin!.end(options.input ?? '');
  });
}

/** Writes a JSONL session file by hand (the format of DESIGN.md), for read-side tests. */
export function writeSessionFile(dir: string, id: string, events: object[]): string {
  const path = join(dir, `${id}.jsonl`);
  writeFileSync(path, `${events.map((event) => JSON.stringify(event)).join('\n')}\n`);
  return path;
}
