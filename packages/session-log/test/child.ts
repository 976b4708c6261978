import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The repository root, where `node --import tsx` resolves `@spine/*` through tsconfig paths. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const childScript = fileURLToPath(new URL('./crash-child.ts', import.meta.url));

/** A running child: its process, every stdout line so far, and a way to wait for a line. */
export interface RunningChild {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  stderr: () => string;
  waitFor: (predicate: (line: string) => boolean) => Promise<string>;
  exited: Promise<number | null>;
}

/**
 * Bundles crash-child.ts (with the session-log sources) into one plain `.mjs` file, so that each
 * of the many child processes starts in tens of milliseconds instead of compiling TypeScript.
 * esbuild comes with tsup, the repository's build tool.
 */
export async function bundleChild(outfile: string): Promise<string> {
  await build({
    entryPoints: [childScript],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'error',
    tsconfig: `${repoRoot}tsconfig.json`,
  });
  return outfile;
}

/** Starts the bundled child in one of the modes described in crash-child.ts. */
export function startChild(
  bundle: string,
  dir: string,
  id: string,
  mode: 'loop' | 'big' | 'hold' | 'exit' | 'snapshot',
): RunningChild {
  const child = spawn(process.execPath, [bundle, dir, id, mode], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let partial = '';
  let errors = '';
  const waiters: Array<{ predicate: (line: string) => boolean; resolve: (line: string) => void }> =
    [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    partial += chunk;
    let newline = partial.indexOf('\n');
    while (newline >= 0) {
      const line = partial.slice(0, newline);
      partial = partial.slice(newline + 1);
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.predicate(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
      newline = partial.indexOf('\n');
    }
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    errors += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    stderr: () => errors,
    exited,
    waitFor: (predicate) =>
      new Promise<string>((resolve, reject) => {
        const found = lines.find(predicate);
        if (found !== undefined) return resolve(found);
        waiters.push({ predicate, resolve });
        void exited.then((code) =>
          reject(new Error(`child exited (${code}) before the line: ${errors}`)),
        );
      }),
  };
}
