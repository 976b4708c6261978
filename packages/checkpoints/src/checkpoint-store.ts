// The narrow interface of a workspace checkpoint store, and the values it returns. The git store
// (store-git.ts) implements it; the conformance kit (@spine/checkpoints/testing) checks any other.

/** How a path differs between two snapshots. */
export type ChangeKind = 'added' | 'modified' | 'deleted' | 'mode';

/** One side of a {@link WorkspaceChange}: a file's mode (`100644`, `100755`, `120000`) and object id. */
export interface EntryState {
  /** Git-style mode: `100644` file, `100755` executable, `120000` symbolic link. */
  mode: string;
  /** Content id of the file (for a link: of its target text). */
  id: string;
  /** All 12 permission bits (`mode & 0o7777`) of a file or folder; absent for links. */
  permissions?: number;
}

/**
 * A path that differs between two snapshots (`from` → `to`). Paths are strings; a name that is
 * not valid UTF-8 carries each stray byte as a lone surrogate U+DC80…U+DCFF, so it maps back to
 * the exact bytes.
 */
export interface WorkspaceChange {
  /** Workspace-relative path, `/`-separated. */
  path: string;
  /** `added`: only in `to`; `deleted`: only in `from`; `modified`: content; `mode`: mode only. */
  kind: ChangeKind;
  /** The entry in `from` (absent for `added`). */
  before?: EntryState;
  /** The entry in `to` (absent for `deleted`). */
  after?: EntryState;
}

/** Why a path is outside what a store records and restores. */
export type UncoveredReason = 'ignored' | 'over-size-cap' | 'nested-repository' | 'unreadable';

/** A path in the workspace that the store neither records nor restores. */
export interface UncoveredPath {
  /** Workspace-relative path; a folder ends with `/`. */
  path: string;
  /** `ignored`: by a `.gitignore`; `over-size-cap`: larger than the cap; `nested-repository`: a
   * folder with its own `.git` (its files are not recorded); `unreadable`: could not be read. */
  reason: UncoveredReason;
}

/** What {@link CheckpointStore.checkpoint} recorded. */
export interface Checkpoint {
  /** The snapshot's id (for the git store: a tree id). Stable: the same content gives the same id. */
  id: string;
  /** The snapshot this one was compared with (the store's previous one), when there is one. */
  previous?: string;
  /** Paths changed since `previous` (empty when nothing changed or there is no previous). */
  changes: WorkspaceChange[];
  /** Files left out because they are larger than the size cap (workspace-relative). */
  skipped: string[];
  /** Wall-clock milliseconds the snapshot took. */
  ms: number;
}

/** Options of {@link CheckpointStore.checkpoint}. */
export interface CheckpointOptions {
  /**
   * Ignored. Every checkpoint records the whole workspace (files whose stat data did not change
   * are not re-read), so a later step's checkpoint never loses what an earlier step wrote.
   *
   * @deprecated A checkpoint of only some paths made rewinds delete files; kept for compatibility.
   */
  paths?: readonly string[];
  /** Stops between git calls; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** What {@link CheckpointStore.restore} did (or, with `dryRun`, would do). */
export interface RestoreResult {
  /** The snapshot restored. */
  target: string;
  /** A snapshot of the workspace taken just before the restore (what it was undone from). */
  from: string;
  /** Changes from `from` to `target`: what the restore wrote, recreated or removed. */
  changes: WorkspaceChange[];
  /** True when nothing was written (`dryRun`). */
  dryRun: boolean;
}

/** Options of {@link CheckpointStore.restore}. */
export interface RestoreOptions {
  /** Computes the changes without touching the workspace. */
  dryRun?: boolean;
  /** Restores only these workspace-relative paths (default: every changed path). */
  paths?: readonly string[];
  /** Stops between git calls; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Snapshots a workspace and puts it back. Files the workspace's `.gitignore` rules exclude, and
 * files over the store's size cap, are neither recorded nor touched by a restore. The store keeps
 * its data outside the workspace and never reads or writes the workspace's own `.git`.
 *
 * Contract: methods throw (reject) only for caller mistakes (an unknown snapshot id:
 * `CheckpointNotFoundError`) and for I/O failures (`CheckpointFailedError`); a snapshot id from
 * `checkpoint()` stays valid for the store's lifetime. Calls may overlap; the store serialises them.
 */
export interface CheckpointStore {
  /** The interface version this store implements. */
  readonly specificationVersion: 1;
  /** Absolute path of the workspace the store snapshots. */
  readonly workspace: string;
  /** Records the workspace as it is now and reports what changed since the previous snapshot. */
  checkpoint(options?: CheckpointOptions): Promise<Checkpoint>;
  /** Changes from snapshot `from` to snapshot `to` (default: the workspace as it is now). */
  diff(from: string, to?: string, options?: { signal?: AbortSignal }): Promise<WorkspaceChange[]>;
  /** A unified diff (text) from snapshot `from` to snapshot `to`, for people to read. */
  patch(from: string, to: string, options?: { signal?: AbortSignal }): Promise<string>;
  /** Puts the workspace back to snapshot `target`: writes changed files, removes added ones. */
  restore(target: string, options?: RestoreOptions): Promise<RestoreResult>;
  /** The content of `path` in snapshot `id`, or undefined when the snapshot has no such file. */
  read(id: string, path: string): Promise<Buffer | undefined>;
  /**
   * What the store does not cover in the workspace as it is now (ignored, over the size cap,
   * nested repositories, unreadable), so a rewind can name what it cannot restore. Optional:
   * a store without it is taken to cover everything.
   */
  uncovered?(options?: { signal?: AbortSignal }): Promise<UncoveredPath[]>;
}
