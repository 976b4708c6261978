import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { BwrapWarmPool } from './internal/bwrap-warm-pool.js';
import { type SandboxBackend, type SandboxCommand, SHELL } from './sandbox.js';

/** Options of {@link createBwrapSandbox}. */
export interface BwrapSandboxOptions {
  /** Path of the `bwrap` executable. Default: the first `bwrap` on `PATH`. */
  path?: string;
  /** Version string to report, when already known. */
  version?: string;
  /**
   * Start the next sandbox ahead of time (parked on a read of its command), so bwrap's set-up is
   * off the critical path. Each command still runs in its own fresh sandbox. Default true.
   */
  prewarm?: boolean;
}

/** Finds an executable named `name` on `PATH`, or `undefined`. */
export function findOnPath(
  name: string,
  pathVariable = process.env.PATH ?? '',
): string | undefined {
  for (const dir of pathVariable.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

/** Builds the bwrap argument list for one command (exported for tests and `doctor`-style output). */
export function bwrapArguments(command: SandboxCommand): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-all'];
  if (command.network) args.push('--share-net');
  if (process.getuid?.() === 0) args.push('--cap-drop', 'ALL');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc');
  if (command.mode === 'workspace-write') {
    args.push('--tmpfs', '/tmp', '--bind', command.workspace, command.workspace);
    for (const root of command.writableRoots ?? []) args.push('--bind', root, root);
  }
  args.push('--chdir', command.cwd, '--', SHELL, '-c', command.command);
  return args;
}

/**
 * Creates a bubblewrap backend. `read-only`: the whole file system read-only, no network;
 * `workspace-write`: the workspace and a private `/tmp` writable; every namespace unshared (network
 * only when granted), the child dies with its parent and runs in its own session and PID
 * namespace, so nothing it starts outlives it. `danger-full-access` runs without bwrap. `spawn`
 * hands each command to a sandbox started ahead of time (see `prewarm`); `close` stops the spare.
 *
 * @example
 * ```ts
 * const backend = createBwrapSandbox();
 * const { file, args } = backend.wrap({ command: 'ls', cwd: '/repo', workspace: '/repo', mode: 'read-only' });
 * ```
 */
export function createBwrapSandbox(options: BwrapSandboxOptions = {}): SandboxBackend {
  const path = options.path ?? findOnPath('bwrap') ?? '/usr/bin/bwrap';
  const info = {
    name: 'bwrap',
    enforces: ['read-only', 'workspace-write', 'danger-full-access'] as const,
    path,
  };
  const pool = new BwrapWarmPool(path, bwrapArguments, options.prewarm ?? true);
  return {
    specificationVersion: 1,
    info: options.version ? { ...info, version: options.version } : info,
    wrap: (command) =>
      command.mode === 'danger-full-access'
        ? { file: SHELL, args: ['-c', command.command] }
        : { file: path, args: bwrapArguments(command) },
    spawn: (command, spawnOptions) => {
      const env = spawnOptions.env ?? process.env;
      if (command.mode !== 'danger-full-access') return pool.spawn(command, env);
      return spawn(SHELL, ['-c', command.command], {
        cwd: command.cwd,
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    },
    close: () => pool.close(),
  };
}

const PROBE = [
  '--ro-bind',
  '/',
  '/',
  '--unshare-all',
  '--die-with-parent',
  '--new-session',
  'true',
];
let detected: Promise<SandboxBackend | undefined> | undefined;
let detectedSync: { backend: SandboxBackend | undefined } | undefined;

function versionOf(output: string): string | undefined {
  return /bubblewrap\s+(\S+)/.exec(output)?.[1];
}

/**
 * Finds a working OS sandbox: `bwrap` on `PATH` that can actually create its namespaces here.
 * The answer is cached for the process.
 *
 * @example
 * ```ts
 * const backend = await detectSandbox();
 * if (!backend) console.log('install bubblewrap');
 * ```
 */
export function detectSandbox(): Promise<SandboxBackend | undefined> {
  if (detectedSync) return Promise.resolve(detectedSync.backend);
  detected ??= new Promise((resolve) => {
    const path = findOnPath('bwrap');
    if (!path) return resolve(undefined);
    const child = spawn(path, PROBE, { stdio: 'ignore' });
    child.on('error', () => resolve(undefined));
    child.on('exit', (code) => {
      if (code !== 0) return resolve(undefined);
      const version = versionOf(spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout ?? '');
      resolve(createBwrapSandbox(version ? { path, version } : { path }));
    });
  });
  return detected;
}

/** Synchronous {@link detectSandbox}, for constructors; shares the same cache. */
export function detectSandboxSync(): SandboxBackend | undefined {
  if (!detectedSync) {
    const path = findOnPath('bwrap');
    let backend: SandboxBackend | undefined;
    if (path && spawnSync(path, PROBE, { stdio: 'ignore' }).status === 0) {
      const version = versionOf(spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout ?? '');
      backend = createBwrapSandbox(version ? { path, version } : { path });
    }
    detectedSync = { backend };
  }
  return detectedSync.backend;
}
