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
  /** Extra writable directories in `workspace-write` (granted by approval). */
  writableRoots?: readonly string[];
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
  wrap(command: SandboxCommand): { file: string; args: string[] };
}

/** The shell every backend runs commands with. */
export const SHELL = '/bin/bash';

/**
 * A backend that confines nothing; it only runs `danger-full-access` commands. Used when the
 * person opted out of isolation.
 */
export function createNoneSandbox(): SandboxBackend {
  return {
    specificationVersion: 1,
    info: { name: 'none', enforces: ['danger-full-access'] },
    wrap: (command) => ({ file: SHELL, args: ['-c', command.command] }),
  };
}
