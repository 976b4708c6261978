// The default CheckpointStore: a shadow git object store driven by the git CLI. Its GIT_DIR and
// index live in `directory` (beside the session, outside the workspace); the workspace is the work
// tree. The index keeps each file's stat data, so a checkpoint re-reads only files whose stat
// changed; trees share unchanged subtrees, so storage grows with the changed bytes. Why git and
// not a blob store of our own: docs/decisions/2026-12-01-checkpoint-store.md (measured).

import { promises as fs } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type {
  Checkpoint,
  CheckpointOptions,
  CheckpointStore,
  RestoreOptions,
  RestoreResult,
  WorkspaceChange,
} from './checkpoint-store.js';
import { CheckpointFailedError, CheckpointNotFoundError } from './errors.js';
import { applyChanges } from './internal/apply.js';
import { GitCallError, type GitPlace, runGit, splitNul } from './internal/git.js';
import { literalIgnorePattern, parseRawDiff } from './internal/tree-diff.js';

/** Default per-file size cap: larger files are left out of checkpoints (and never restored). */
export const DEFAULT_MAX_FILE_BYTES = 16 * 1024 * 1024;

/** Options of {@link createGitCheckpointStore}. */
export interface GitCheckpointStoreOptions {
  /** The workspace to snapshot (absolute, or relative to the process's cwd). */
  workspace: string;
  /** Folder for the store's own data (made if missing); must not be inside the workspace. */
  directory: string;
  /** Files larger than this many bytes are not recorded (default {@link DEFAULT_MAX_FILE_BYTES}). */
  maxFileBytes?: number;
  /** The git executable (default `git` on the PATH). */
  gitPath?: string;
}

// Attributes that would make git change bytes on the way in (line endings, filters) are unset for
// every path: the store records files exactly as they are.
const ATTRIBUTES = '* -text -filter -ident -eol -working-tree-encoding\n';
const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** Workspace-relative, `/`-separated forms of `paths`; those outside the workspace are dropped. */
function scopedPaths(
  workspace: string,
  paths: readonly string[] | undefined,
): string[] | undefined {
  if (!paths) return undefined;
  const inside: string[] = [];
  for (const path of paths) {
    const inner = relative(workspace, resolve(workspace, path)).split(sep).join('/');
    if (inner === '' || inner === '..' || inner.startsWith('../') || isAbsolute(inner)) continue;
    if (inner.split('/').includes('.git')) continue;
    inside.push(inner);
  }
  return inside;
}

class GitCheckpointStore implements CheckpointStore {
  readonly specificationVersion = 1 as const;
  readonly workspace: string;
  readonly #place: GitPlace;
  readonly #directory: string;
  readonly #maxFileBytes: number;
  readonly #known = new Set<string>();
  #queue: Promise<unknown> = Promise.resolve();
  #ready: Promise<void> | undefined;
  #previous: string | undefined;

  constructor(options: GitCheckpointStoreOptions) {
    this.workspace = resolve(options.workspace);
    this.#directory = resolve(options.directory);
    this.#maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.#place = {
      gitPath: options.gitPath ?? 'git',
      gitDir: join(this.#directory, 'git'),
      workTree: this.workspace,
    };
  }

  checkpoint(options: CheckpointOptions = {}): Promise<Checkpoint> {
    return this.#serial(
      () => this.#snapshot(options.signal, scopedPaths(this.workspace, options.paths)),
      'record a checkpoint',
    );
  }

  diff(from: string, to?: string, options: { signal?: AbortSignal } = {}) {
    return this.#serial(async () => {
      await this.#assertKnown(from);
      const target = to ?? (await this.#snapshot(options.signal)).id;
      if (to) await this.#assertKnown(to);
      return this.#diffTrees(from, target, options.signal);
    }, 'compare checkpoints');
  }

  patch(from: string, to: string, options: { signal?: AbortSignal } = {}): Promise<string> {
    return this.#serial(async () => {
      await this.#assertKnown(from);
      await this.#assertKnown(to);
      const args = [
        'diff-tree',
        '-r',
        '-p',
        '--no-renames',
        '--no-color',
        '--no-ext-diff',
        from,
        to,
      ];
      const output = await runGit(this.#place, args, { signal: options.signal });
      return output.stdout.toString('utf8');
    }, 'compare checkpoints');
  }

  restore(target: string, options: RestoreOptions = {}): Promise<RestoreResult> {
    return this.#serial(async () => {
      await this.#assertKnown(target);
      const now = await this.#snapshot(options.signal);
      let changes = await this.#diffTrees(now.id, target, options.signal);
      if (options.paths) {
        const wanted = new Set(options.paths);
        changes = changes.filter((change) => wanted.has(change.path));
      }
      const result: RestoreResult = {
        target,
        from: now.id,
        changes,
        dryRun: options.dryRun === true,
      };
      if (options.dryRun || changes.length === 0) return result;
      const ids = [
        ...new Set(changes.flatMap((change) => (change.after ? [change.after.id] : []))),
      ];
      const contents = await this.#readObjects(ids, options.signal);
      await applyChanges(this.workspace, changes, contents);
      return result;
    }, 'restore a checkpoint');
  }

  read(id: string, path: string): Promise<Buffer | undefined> {
    return this.#serial(async () => {
      await this.#assertKnown(id);
      try {
        return (await runGit(this.#place, ['cat-file', 'blob', `${id}:${path}`])).stdout;
      } catch (error) {
        if (error instanceof GitCallError) return undefined;
        throw error;
      }
    }, 'read a checkpoint');
  }

  #serial<T>(action: () => Promise<T>, what: string): Promise<T> {
    const run = this.#queue.then(async () => {
      await this.#init();
      try {
        return await action();
      } catch (error) {
        if (error instanceof CheckpointNotFoundError) throw error;
        if (error instanceof Error && error.name === 'AbortError') throw error;
        throw new CheckpointFailedError({ action: what, cause: error });
      }
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #init(): Promise<void> {
    this.#ready ??= (async () => {
      const inner = resolve(this.#directory).startsWith(`${this.workspace}/`);
      if (inner)
        throw new Error(`the checkpoint directory ${this.#directory} is inside the workspace`);
      await fs.mkdir(this.#directory, { recursive: true });
      const head = join(this.#place.gitDir, 'HEAD');
      const exists = await fs.access(head).then(
        () => true,
        () => false,
      );
      if (!exists) await runGit(this.#place, ['init', '-q']);
      await fs.mkdir(join(this.#place.gitDir, 'info'), { recursive: true });
      await fs.mkdir(join(this.#place.gitDir, 'refs', 'checkpoints'), { recursive: true });
      await fs.writeFile(join(this.#place.gitDir, 'info', 'attributes'), ATTRIBUTES);
      this.#previous = await fs
        .readFile(join(this.#directory, 'last'), 'utf8')
        .then((text) => text.trim() || undefined)
        .catch(() => undefined);
      if (this.#previous) this.#known.add(this.#previous);
    })().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #snapshot(signal?: AbortSignal, paths?: readonly string[]): Promise<Checkpoint> {
    const started = performance.now();
    const skipped: string[] = [];
    if (!this.#previous) skipped.push(...(await this.#excludeLargeUntracked(signal)));
    if (!this.#previous || !paths || !(await this.#addPaths(paths, signal))) {
      await this.#addAll(signal);
    }
    const previous = this.#previous;
    let [id, changes] = await this.#writeTreeAndDiff(previous, signal);
    const large = await this.#largeFiles(changes);
    if (large.length > 0) {
      await this.#exclude(large);
      const input = `${large.join('\0')}\0`;
      const args = [
        '--literal-pathspecs',
        'rm',
        '--cached',
        '-q',
        '--ignore-unmatch',
        '--pathspec-from-file=-',
        '--pathspec-file-nul',
      ];
      await runGit(this.#place, args, { input, signal });
      [id, changes] = await this.#writeTreeAndDiff(previous, signal);
      skipped.push(...large);
    }
    this.#previous = id;
    this.#known.add(id);
    await Promise.all([
      fs.writeFile(join(this.#place.gitDir, 'refs', 'checkpoints', id), `${id}\n`),
      fs.writeFile(join(this.#directory, 'last'), `${id}\n`),
    ]);
    const checkpoint: Checkpoint = { id, changes, skipped, ms: performance.now() - started };
    if (previous) checkpoint.previous = previous;
    return checkpoint;
  }

  async #addAll(signal?: AbortSignal): Promise<void> {
    try {
      await runGit(this.#place, ['add', '-A', '--ignore-errors', '--', '.'], { signal });
    } catch (error) {
      // --ignore-errors: files that vanished or cannot be read are left as they were; the rest is
      // staged. Anything else (no git, a broken store) shows in write-tree below.
      if (!(error instanceof GitCallError) || error.exitCode === 128) throw error;
    }
  }

  /** Stages only `paths`; false when git refused them (the caller then stages everything). */
  async #addPaths(paths: readonly string[], signal?: AbortSignal): Promise<boolean> {
    const present: string[] = [];
    const missing: string[] = [];
    const stats = await Promise.all(
      paths.map((path) => fs.lstat(join(this.workspace, path)).catch(() => undefined)),
    );
    for (const [index, path] of paths.entries()) (stats[index] ? present : missing).push(path);
    try {
      if (present.length > 0) {
        const args = ['--literal-pathspecs', 'add', '-A', '--ignore-errors', '--', ...present];
        await runGit(this.#place, args, { signal }).catch((error: unknown) => {
          // Exit 1: some paths are ignored (left out, as intended); 128: refused (e.g. a path
          // beyond a symbolic link), answered by staging everything.
          if (!(error instanceof GitCallError) || error.exitCode !== 1) throw error;
        });
      }
      if (missing.length > 0) {
        const args = ['--literal-pathspecs', 'rm', '--cached', '-q', '--ignore-unmatch', '--'];
        await runGit(this.#place, [...args, ...missing], { signal });
      }
      return true;
    } catch (error) {
      if (error instanceof GitCallError) return false;
      throw error;
    }
  }

  async #writeTree(signal?: AbortSignal): Promise<string> {
    return (await runGit(this.#place, ['write-tree'], { signal })).stdout.toString('utf8').trim();
  }

  /**
   * Writes the index as a tree and, at the same time, lists how the index differs from `previous`
   * (`diff-index --cached` reads the same index write-tree turns into the tree, so its changes
   * equal a diff-tree of `previous` against the new tree, one git call later saved).
   */
  async #writeTreeAndDiff(
    previous: string | undefined,
    signal?: AbortSignal,
  ): Promise<[string, WorkspaceChange[]]> {
    const args = ['diff-index', '--cached', '-r', '-z', '--raw', '--no-renames', '--no-abbrev'];
    const [id, diff] = await Promise.all([
      this.#writeTree(signal),
      previous ? runGit(this.#place, [...args, previous, '--'], { signal }) : undefined,
    ]);
    if (!diff || previous === id) return [id, []];
    return [id, parseRawDiff(splitNul(diff.stdout))];
  }

  async #diffTrees(from: string, to: string, signal?: AbortSignal): Promise<WorkspaceChange[]> {
    if (from === to) return [];
    const args = ['diff-tree', '-r', '-z', '--raw', '--no-renames', '--no-abbrev', from, to];
    return parseRawDiff(splitNul((await runGit(this.#place, args, { signal })).stdout));
  }

  /** Changed files (not links) now larger than the cap. */
  async #largeFiles(changes: readonly WorkspaceChange[]): Promise<string[]> {
    const files = changes.filter((change) => change.after && change.after.mode !== '120000');
    const sizes = await Promise.all(
      files.map((change) =>
        fs.lstat(join(this.workspace, change.path)).then(
          (stats) => stats.size,
          () => 0,
        ),
      ),
    );
    return files.filter((_, index) => (sizes[index] ?? 0) > this.#maxFileBytes).map((c) => c.path);
  }

  /** Before the first snapshot: keeps untracked files over the cap out of the object store. */
  async #excludeLargeUntracked(signal?: AbortSignal): Promise<string[]> {
    const args = ['ls-files', '-z', '-o', '--exclude-standard'];
    const paths = splitNul((await runGit(this.#place, args, { signal })).stdout);
    const large: string[] = [];
    for (const path of paths) {
      const stats = await fs.lstat(join(this.workspace, path)).catch(() => undefined);
      if (stats?.isFile() && stats.size > this.#maxFileBytes) large.push(path);
    }
    if (large.length > 0) await this.#exclude(large);
    return large;
  }

  async #exclude(paths: readonly string[]): Promise<void> {
    const lines = paths.map((path) => `${literalIgnorePattern(path)}\n`).join('');
    await fs.appendFile(join(this.#place.gitDir, 'info', 'exclude'), lines);
  }

  async #assertKnown(id: string): Promise<void> {
    if (this.#known.has(id)) return;
    if (!OBJECT_ID.test(id)) throw new CheckpointNotFoundError({ id });
    try {
      const type = await runGit(this.#place, ['cat-file', '-t', id]);
      if (type.stdout.toString('utf8').trim() !== 'tree') throw new CheckpointNotFoundError({ id });
    } catch (error) {
      if (error instanceof GitCallError) throw new CheckpointNotFoundError({ id });
      throw error;
    }
    this.#known.add(id);
  }

  /** Reads blobs by id with one `git cat-file --batch`. */
  async #readObjects(ids: readonly string[], signal?: AbortSignal): Promise<Map<string, Buffer>> {
    const contents = new Map<string, Buffer>();
    if (ids.length === 0) return contents;
    const input = `${ids.join('\n')}\n`;
    const output = (await runGit(this.#place, ['cat-file', '--batch'], { input, signal })).stdout;
    let offset = 0;
    while (offset < output.length) {
      const newline = output.indexOf(10, offset);
      if (newline < 0) break;
      const [id, type, size] = output.subarray(offset, newline).toString('utf8').split(' ');
      if (type === 'missing' || !id || size === undefined)
        throw new Error(`object ${id} is missing`);
      const length = Number(size);
      contents.set(id, output.subarray(newline + 1, newline + 1 + length));
      offset = newline + 1 + length + 1;
    }
    return contents;
  }
}

/**
 * Creates the default {@link CheckpointStore}: a shadow git object store in `directory` over the
 * workspace, driven by the git CLI (git must be installed). `.gitignore` rules apply; the
 * workspace's own `.git` is never read or written.
 *
 * @example
 * ```ts
 * const store = createGitCheckpointStore({ workspace: '/work/app', directory: '/tmp/app.ckpt' });
 * const before = await store.checkpoint();
 * // … tools change files …
 * await store.restore(before.id);
 * ```
 */
export function createGitCheckpointStore(options: GitCheckpointStoreOptions): CheckpointStore {
  if (!isAbsolute(resolve(options.directory))) throw new TypeError('directory must be a path');
  return new GitCheckpointStore(options);
}
