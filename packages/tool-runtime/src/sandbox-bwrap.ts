import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { domainLauncher, spawnWithDomainProxy } from './internal/bwrap-domains.js';
import {
  joinsSharedNetwork,
  nsenterPrefix,
  startNetworkHolder,
  UNSHARE_ALL_BUT_NET,
} from './internal/bwrap-netns.js';
import { BwrapWarmPool } from './internal/bwrap-warm-pool.js';
import { credentialMounts } from './internal/credential-mounts.js';
import { spawnLeavingNoMountPoints } from './internal/mount-point-cleanup.js';
import {
  missingProtectedFiles,
  protectedMounts,
  removeCreatedProtectedFiles,
} from './internal/protected-mounts.js';
import type { DomainProxyPolicy } from './network-proxy.js';
import { DEFAULT_PROTECTED_PATHS } from './protected-paths.js';
import {
  type SandboxBackend,
  type SandboxCommand,
  SHELL,
  SHELL_FLAGS,
  type SharedNetworkNamespace,
} from './sandbox.js';
import { createSeccompFilter } from './seccomp-filter.js';

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
  /**
   * Unix-domain sockets a command may create: `'none'` (default; the seccomp filter refuses
   * `socket(AF_UNIX, …)`, so no host socket (docker, ssh-agent, tmux, D-Bus) can be reached) or
   * `'all'`.
   */
  unixSockets?: 'none' | 'all';
  /**
   * Workspace-relative globs bound read-only in `workspace-write` (see `DEFAULT_PROTECTED_PATHS`),
   * or `false` to bind none. Default: `DEFAULT_PROTECTED_PATHS`.
   */
  protectedPaths?: readonly string[] | false;
  /**
   * How commands with `networkDomains` reach the network: the address check (default
   * `refusedAddressReason`; the CLI passes web-tools' policy), the resolver, and a decision log.
   */
  network?: Omit<DomainProxyPolicy, 'domains'>;
  /**
   * Run each command in its own user namespace as a non-zero uid (default true). {@link detectSandbox}
   * turns it off where the kernel refuses user namespaces; the command then keeps the host uid,
   * still without capabilities, with the same read-only mounts and seccomp filter.
   */
  userNamespace?: boolean;
  /**
   * Credential locations hidden from every command (see `DEFAULT_CREDENTIAL_PATHS`; absolute or
   * home-relative), or `false` to show them all. Default: `DEFAULT_CREDENTIAL_PATHS`.
   */
  credentialPaths?: readonly string[] | false;
  /** The home directory `credentialPaths` are relative to. Default `os.homedir()`. */
  home?: string;
}

/** Options of {@link bwrapArguments} beyond the command itself. */
export interface BwrapArgumentsOptions {
  /** File descriptor (in bwrap) to read the seccomp program from; omitted: no `--seccomp`. */
  seccompFd?: number;
  /** Workspace-relative globs bound read-only in `workspace-write`. Default: none. */
  protectedPaths?: readonly string[];
  /** Uid and gid the command runs as inside its user namespace. Default: the host ids, or 1000 for root. */
  uid?: number;
  /** See {@link BwrapArgumentsOptions.uid}. */
  gid?: number;
  /** Add `--unshare-user --uid --gid` (default true). */
  userNamespace?: boolean;
  /**
   * Credential locations to hide (absolute, or relative to `home`); `[]` hides none. Default
   * `DEFAULT_CREDENTIAL_PATHS`.
   */
  credentialPaths?: readonly string[];
  /** The home directory `credentialPaths` are relative to. Default `os.homedir()`. */
  home?: string;
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

// Kernel interfaces under /proc that write to host state; bound read-only over the sandbox's /proc.
const PROC_COVERS = ['sys', 'sysrq-trigger', 'irq', 'bus', 'fs', 'acpi', 'scsi', 'driver'];

/** The uid a command runs as inside its user namespace: never 0 (root there keeps capabilities). */
export function sandboxIds(): { uid: number; gid: number } {
  const uid = process.getuid?.() ?? 1000;
  const gid = process.getgid?.() ?? 1000;
  return { uid: uid === 0 ? 1000 : uid, gid: gid === 0 ? 1000 : gid };
}

/**
 * Builds the bwrap argument list for one command (exported for tests and `doctor`-style output):
 * every namespace unshared (network only when granted), a user namespace with a non-zero uid, no
 * capabilities, `/` read-only, `/proc/sys` and other kernel knobs read-only, a private `/tmp`, the
 * workspace writable in `workspace-write` except protected paths, credential locations hidden, and
 * the seccomp program read from `seccompFd`. The shell reads no startup files.
 */
export function bwrapArguments(
  command: SandboxCommand,
  options: BwrapArgumentsOptions = {},
): string[] {
  const ids = sandboxIds();
  const args = ['--die-with-parent', '--new-session'];
  // A shared namespace is joined before bwrap starts (nsenter): unshare everything else.
  if (joinsSharedNetwork(command)) args.push(...UNSHARE_ALL_BUT_NET);
  else args.push('--unshare-all');
  if (command.network) args.push('--share-net');
  if (options.userNamespace !== false) {
    args.push('--unshare-user', '--uid', String(options.uid ?? ids.uid));
    args.push('--gid', String(options.gid ?? ids.gid));
  }
  args.push('--cap-drop', 'ALL');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc');
  for (const name of PROC_COVERS) args.push('--ro-bind-try', `/proc/${name}`, `/proc/${name}`);
  args.push('--tmpfs', '/tmp');
  // Programs under /tmp that the command runs (bound before the workspace, which stays writable).
  for (const root of command.readOnlyRoots ?? []) args.push('--ro-bind', root, root);
  // The private /tmp hides a workspace under /tmp: bind it back (read-only unless workspace-write).
  if (command.mode !== 'workspace-write')
    args.push('--ro-bind', command.workspace, command.workspace);
  else {
    args.push('--bind', command.workspace, command.workspace);
    for (const root of command.writableRoots ?? []) args.push('--bind', root, root);
    if (options.protectedPaths && options.protectedPaths.length > 0) {
      const mounts = protectedMounts(command.workspace, options.protectedPaths);
      for (const path of mounts.pinned) {
        const absolute = join(command.workspace, path);
        args.push('--bind', absolute, absolute);
      }
      for (const path of mounts.existing) {
        const absolute = join(command.workspace, path);
        args.push('--ro-bind', absolute, absolute);
      }
      for (const path of mounts.missingDirectories) {
        const absolute = join(command.workspace, path);
        args.push('--tmpfs', absolute, '--remount-ro', absolute);
      }
    }
  }
  args.push(...credentialMounts(options.credentialPaths, options.home));
  args.push('--unsetenv', 'BASH_ENV', '--unsetenv', 'ENV');
  if (options.seccompFd !== undefined) args.push('--seccomp', String(options.seccompFd));
  args.push('--chdir', command.cwd, '--', SHELL, ...SHELL_FLAGS, '-c', command.command);
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
    userNamespace: options.userNamespace ?? true,
  };
  const filter = createSeccompFilter({ unixSockets: options.unixSockets ?? 'none' });
  const protectedPaths =
    options.protectedPaths === false ? [] : (options.protectedPaths ?? DEFAULT_PROTECTED_PATHS);
  const argumentsFor = (command: SandboxCommand): string[] =>
    bwrapArguments(command, {
      seccompFd: SECCOMP_FD,
      protectedPaths,
      userNamespace: options.userNamespace ?? true,
      ...(options.credentialPaths !== undefined
        ? { credentialPaths: options.credentialPaths || [] }
        : {}),
      ...(options.home !== undefined ? { home: options.home } : {}),
    });
  const pool = new BwrapWarmPool(path, argumentsFor, filter, options.prewarm ?? true);
  // A plain argv cannot carry the seccomp program as a descriptor: the shell that becomes bwrap
  // feeds it, octal-escaped, through a pipe on fd 3 (no temporary file to leak).
  const filterEscaped = [...filter]
    .map((byte) => `\\0${byte.toString(8).padStart(3, '0')}`)
    .join('');
  const backend: SandboxBackend = {
    specificationVersion: 1,
    info: options.version ? { ...info, version: options.version } : info,
    wrap: (command) => {
      if (command.mode === 'danger-full-access')
        return { file: SHELL, args: [...SHELL_FLAGS, '-c', command.command] };
      return {
        file: SHELL,
        args: [
          ...SHELL_FLAGS,
          '-c',
          'exec 3< <(printf %b "$1") && shift && exec "$@"',
          'spine-bwrap',
          filterEscaped,
          ...(joinsSharedNetwork(command)
            ? nsenterPrefix(command.sharedNetwork as SharedNetworkNamespace)
            : []),
          path,
          ...argumentsFor(command),
        ],
      };
    },
    spawn: (command, spawnOptions) => {
      const child = spawnLeavingNoMountPoints(command, protectedPaths, () =>
        spawnConfined(command, spawnOptions.env ?? process.env, spawnOptions.output),
      );
      if (command.mode === 'workspace-write' && protectedPaths.length > 0) {
        // Protected files that did not exist could not be bound: remove them if the command made them.
        const missing = missingProtectedFiles(command.workspace, protectedPaths);
        if (missing.length > 0)
          child.once('exit', () => removeCreatedProtectedFiles(command.workspace, missing));
      }
      return child;
    },
    createSharedNetwork: () =>
      startNetworkHolder({
        bwrapPath: path,
        userNamespace: options.userNamespace ?? true,
        nsenterFound: findOnPath('nsenter') !== undefined,
      }),
    close: () => pool.close(),
  };
  return backend;

  function spawnConfined(
    command: SandboxCommand,
    env: NodeJS.ProcessEnv,
    output?: number,
  ): ChildProcess {
    const domains = command.networkDomains ?? [];
    if (command.mode !== 'danger-full-access' && !command.network && domains.length > 0) {
      const launched = { ...command, command: domainLauncher(command.command) };
      return spawnWithDomainProxy({
        path,
        args: argumentsFor(launched),
        command,
        env,
        seccompFilter: filter,
        policy: { ...options.network, domains },
      });
    }
    // A pre-started sandbox has pipes and a fresh network namespace: not for these.
    if (
      command.mode === 'danger-full-access' ||
      joinsSharedNetwork(command) ||
      output !== undefined
    ) {
      const wrapped = backend.wrap(command);
      return spawn(wrapped.file, wrapped.args, {
        cwd: command.cwd,
        env,
        detached: true,
        stdio: ['ignore', output ?? 'pipe', output ?? 'pipe'],
      });
    }
    return pool.spawn(command, env);
  }
}

/** The descriptor bwrap reads the seccomp program from (the fourth stdio entry of the spawn). */
const SECCOMP_FD = 3;

const PROBE = ['--ro-bind', '/', '/', '--unshare-all', '--die-with-parent', '--new-session'];
// Tried first: a user namespace with the uid commands will run as.
const probeUserNamespace = (): string[] => [
  ...PROBE,
  '--unshare-user',
  '--uid',
  String(sandboxIds().uid),
  '--gid',
  String(sandboxIds().gid),
  'true',
];
let detected: Promise<SandboxBackend | undefined> | undefined;
let detectedSync: { backend: SandboxBackend | undefined } | undefined;

function versionOf(output: string): string | undefined {
  return /bubblewrap\s+(\S+)/.exec(output)?.[1];
}

function backendAt(path: string, userNamespace: boolean): SandboxBackend {
  const version = versionOf(spawnSync(path, ['--version'], { encoding: 'utf8' }).stdout ?? '');
  return createBwrapSandbox(version ? { path, version, userNamespace } : { path, userNamespace });
}

function exitCodeOf(path: string, args: string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(path, args, { stdio: 'ignore' });
    child.on('error', () => resolve(null));
    child.on('exit', (code) => resolve(code));
  });
}

/** Options of {@link detectSandbox}: the settings a configured sandbox differs from the default by. */
export type DetectSandboxOptions = Pick<
  BwrapSandboxOptions,
  'unixSockets' | 'protectedPaths' | 'network' | 'credentialPaths'
>;

/**
 * Finds a working OS sandbox: `bwrap` on `PATH` that can actually create its namespaces here,
 * with a user namespace of its own when the kernel allows one. The answer is cached for the process.
 * With `options` that differ from the defaults (Unix sockets allowed, protected paths given, a
 * network policy given), it returns a new bwrap backend with those settings at the detected path
 * and user-namespace mode; otherwise the cached default backend.
 *
 * @example
 * ```ts
 * const backend = await detectSandbox({ unixSockets: 'all' });
 * if (!backend) console.log('install bubblewrap');
 * ```
 */
export async function detectSandbox(
  options: DetectSandboxOptions = {},
): Promise<SandboxBackend | undefined> {
  const found = await detectDefaultSandbox();
  const configured =
    (options.unixSockets ?? 'none') !== 'none' ||
    options.protectedPaths !== undefined ||
    options.network !== undefined ||
    options.credentialPaths !== undefined;
  if (!found || !configured) return found;
  const { path, version, userNamespace } = found.info;
  return createBwrapSandbox({
    ...(path ? { path } : {}),
    ...(version ? { version } : {}),
    ...(userNamespace === false ? { userNamespace: false } : {}),
    ...options,
  });
}

function detectDefaultSandbox(): Promise<SandboxBackend | undefined> {
  if (detectedSync) return Promise.resolve(detectedSync.backend);
  detected ??= (async () => {
    const path = findOnPath('bwrap');
    if (!path) return undefined;
    if ((await exitCodeOf(path, probeUserNamespace())) === 0) return backendAt(path, true);
    if ((await exitCodeOf(path, [...PROBE, 'true'])) === 0) return backendAt(path, false);
    return undefined;
  })();
  return detected;
}

/** Synchronous {@link detectSandbox}, for constructors; shares the same cache. */
export function detectSandboxSync(): SandboxBackend | undefined {
  if (!detectedSync) {
    const path = findOnPath('bwrap');
    let backend: SandboxBackend | undefined;
    if (path && spawnSync(path, probeUserNamespace(), { stdio: 'ignore' }).status === 0)
      backend = backendAt(path, true);
    else if (path && spawnSync(path, [...PROBE, 'true'], { stdio: 'ignore' }).status === 0)
      backend = backendAt(path, false);
    detectedSync = { backend };
  }
  return detectedSync.backend;
}
