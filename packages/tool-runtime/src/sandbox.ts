import type { ChildProcess } from 'node:child_process';
import type { SandboxMode } from '@spine/protocol';

/** One shell command to confine. */
export interface SandboxCommand {
  /** The shell command line (run with `bash -c`). */
  command: string;
  /** Working directory (inside the workspace). */
  cwd: string;
  /** The workspace root (absolute, real path). */
  workspace: string;
  /** The mode to enforce. */
  mode: SandboxMode;
  /** Allow network access (granted by approval). Default false. */
  network?: boolean;
  /**
   * Without `network`: reach only these hosts, through a filtering HTTP/HTTPS proxy the backend
   * runs (`example.com`, `*.example.com`, `example.test:8443`): ports 80 and 443 unless an entry
   * names its port. A backend that cannot do this gives no network.
   */
  networkDomains?: readonly string[];
  /** Extra writable directories in `workspace-write` (granted by approval). */
  writableRoots?: readonly string[];
  /**
   * Directories to show read-only although the sandbox's private `/tmp` hides them (a program
   * the command runs that lives under `/tmp`, such as an MCP server installed there).
   */
  readOnlyRoots?: readonly string[];
  /**
   * Without `network` and `networkDomains`: join this network namespace (loopback only) instead of
   * a fresh one, so a server a background job started on 127.0.0.1 is reachable by later commands.
   */
  sharedNetwork?: SharedNetworkNamespace;
}

/** A network namespace with only loopback that several sandboxed commands of a session share. */
export interface SharedNetworkNamespace {
  /** `/proc/<pid>/ns/net` of the process holding it. */
  readonly netPath: string;
  /** `/proc/<pid>/ns/user` of the holder, when it has a user namespace of its own. */
  readonly userPath?: string;
  /** Stops the holder; the namespace ends once no command uses it. */
  close(): void;
}

/** The executable and arguments that run a command under a backend. */
export interface WrappedCommand {
  /** Executable to spawn. */
  file: string;
  /** Its arguments. */
  args: string[];
}

/** Options of {@link SandboxBackend.spawn}. */
export interface SandboxSpawnOptions {
  /** Environment of the command. */
  env?: NodeJS.ProcessEnv;
  /**
   * A descriptor (a file) for the command's stdout and stderr instead of pipes, so its output
   * never passes through this process. A backend that cannot do it for a command gives pipes.
   */
  output?: number;
}

/** What a backend is and which modes it enforces. */
export interface SandboxBackendInfo {
  /** Backend name recorded in each result's `meta.sandbox` (`bwrap`, `none`). */
  name: string;
  /** Modes this backend can enforce. `none` enforces only `danger-full-access`. */
  enforces: readonly SandboxMode[];
  /** Backend version, when known. */
  version?: string;
  /** Executable path, when there is one. */
  path?: string;
  /** Whether each command gets a user namespace of its own (bwrap), when the backend knows. */
  userNamespace?: boolean;
}

/**
 * An OS sandbox backend: turns a command into the argv that runs it confined.
 *
 * Contract: `wrap` never weakens `mode`; a backend that cannot enforce a mode does not list it in
 * `info.enforces`, and the caller refuses rather than run the command unconfined.
 */
export interface SandboxBackend {
  /** Interface version. */
  readonly specificationVersion: 1;
  /** What this backend is. */
  readonly info: SandboxBackendInfo;
  /** Returns the executable and arguments that run `command` under this backend. */
  wrap(command: SandboxCommand): WrappedCommand;
  /**
   * Optional: starts `command` confined and returns the child (its own process group leader,
   * stdout and stderr piped). A backend may hand over a sandbox it started ahead of time, so the
   * namespace set-up is off the critical path. When absent, callers spawn `wrap()`'s argv.
   */
  spawn?(command: SandboxCommand, options: SandboxSpawnOptions): ChildProcess;
  /**
   * Optional: creates a loopback-only network namespace that commands can share (see
   * `SandboxCommand.sharedNetwork`). Backends without it give every command its own.
   */
  createSharedNetwork?(): Promise<SharedNetworkNamespace>;
  /** Optional: stops sandboxes started ahead of time. */
  close?(): void;
}

/** The shell every backend runs commands with. */
export const SHELL = '/bin/bash';

/**
 * Flags the shell always gets: no profile and no rc file, whatever `SHLVL` and stdin look like
 * (bash reads `~/.bashrc` for `-c` when it guesses it was started by sshd/rshd).
 */
export const SHELL_FLAGS: readonly string[] = Object.freeze(['--noprofile', '--norc']);

/**
 * A backend that confines nothing; it only runs `danger-full-access` commands. Used when the
 * person opted out of isolation.
 */
export function createNoneSandbox(): SandboxBackend {
  return {
    specificationVersion: 1,
    info: { name: 'none', enforces: ['danger-full-access'] },
    wrap: (command) => ({ file: SHELL, args: [...SHELL_FLAGS, '-c', command.command] }),
  };
}
