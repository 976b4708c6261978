// Starting writer-child.ts as a real process: bundled once with esbuild (the repository's build
// tool, via tsup) so each of the many children starts in tens of milliseconds.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** A running child: its process, its stdout lines, and a way to wait for the next matching one. */
export interface RunningChild {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  stderr: () => string;
  /** Resolves with the first line (from `fromLine` on) matching `predicate`. */
  waitFor: (predicate: (line: string) => boolean, fromLine?: number) => Promise<string>;
  exited: Promise<number | null>;
}

/** Bundles `script` (a file in this folder) into `outfile`. */
export async function bundle(script: string, outfile: string): Promise<string> {
  await build({
    entryPoints: [fileURLToPath(new URL(script, import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'error',
    external: ['pg-native'],
    banner: {
      js: "import { createRequire as bannerRequire } from 'node:module'; const require = bannerRequire(import.meta.url);",
    },
    tsconfig: `${repoRoot}tsconfig.json`,
  });
  return outfile;
}

/** Starts a bundled child with `args`. */
export function startChild(file: string, args: string[]): RunningChild {
  // The bundle lives in a temp folder: NODE_PATH lets it (and its worker thread) resolve `pg`.
  const child = spawn(process.execPath, [file, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NODE_PATH: `${repoRoot}node_modules` },
  });
  const lines: string[] = [];
  let partial = '';
  let errors = '';
  const waiters = new Set<() => void>();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    partial += chunk;
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    for (const waiter of [...waiters]) waiter();
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    errors += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = (predicate: (line: string) => boolean, fromLine = 0): Promise<string> =>
    new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = lines.slice(fromLine).find(predicate);
        if (found === undefined) return false;
        waiters.delete(check as () => void);
        resolve(found);
        return true;
      };
      if (check()) return;
      waiters.add(check as () => void);
      void exited.then(() => {
        if (!check()) reject(new Error(`child exited before the line; stderr: ${errors}`));
      });
    });
  return { child, lines, stderr: () => errors, waitFor, exited };
}
