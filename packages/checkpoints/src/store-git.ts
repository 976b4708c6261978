// The default CheckpointStore: a shadow git object store driven by the git CLI. Its GIT_DIR and
// index live in `directory` (beside the session, outside the workspace); the workspace is the work
// tree. The index keeps each file's stat data, so a checkpoint re-reads only files whose stat
// changed; trees share unchanged subtrees, so storage grows with the changed bytes. Why git and
// not a blob store of our own: docs/decisions/2026-12-01-checkpoint-store.md (measured).

import { promises as fs } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type {
  Checkpoint,
  CheckpointOptions,
  CheckpointStore,
  RestoreOptions,
  RestoreResult,
  UncoveredPath,
  WorkspaceChange,
} from './checkpoint-store.js';
import {
  CheckpointFailedError,
  CheckpointNotFoundError,
  CheckpointStoreMissingError,
} from './errors.js';
import { applyChanges } from './internal/apply.js';
import { GitCallError, type GitPlace, runGit } from './internal/git.js';
import { createGitDir } from './internal/git-dir.js';
import {
  type Modes,
  modesMessage,
  noModes,
  parseModes,
  readModes,
  type TreeListing,
  withPermissions,
} from './internal/modes.js';
import { listTree, listUncovered, readObjects } from './internal/objects.js';
import { OverCapList } from './internal/over-cap.js';
import { encodePath, nulInput, splitNulPaths } from './internal/path-bytes.js';
import { parseRawDiff } from './internal/tree-diff.js';

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
  /**
   * The session this store records for. Each session has its own index, exclude list and
   * "last snapshot", so sessions sharing one store directory never wait on each other's lock.
   */
  session?: string;
}

// Attributes that would make git change bytes on the way in (line endings, filters) are unset for
// every path: the store records files exactly as they are.
const ATTRIBUTES = '* -text -filter -ident -eol -working-tree-encoding\n';
const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const SESSION_KEY = /[^A-Za-z0-9._-]/g;

class GitCheckpointStore implements CheckpointStore {
  readonly specificationVersion = 1 as const;
  readonly workspace: string;
  readonly #place: GitPlace;
  readonly #directory: string;
  readonly #lastFile: string;
  readonly #overCap: OverCapList;
  readonly #known = new Set<string>();
  readonly #modes = new Map<string, Modes>();
  #queue: Promise<unknown> = Promise.resolve();
  #ready: Promise<void> | undefined;
  #previous: string | undefined;

  constructor(options: GitCheckpointStoreOptions) {
    this.workspace = resolve(options.workspace);
    this.#directory = resolve(options.directory);
    const suffix = options.session ? `-${options.session.replace(SESSION_KEY, '_')}` : '';
    const gitDir = join(this.#directory, 'git');
    this.#place = {
      gitPath: options.gitPath ?? 'git',
      gitDir,
      workTree: this.workspace,
      indexFile: join(gitDir, `index${suffix}`),
      excludesFile: join(this.#directory, `exclude${suffix}`),
    };
    this.#lastFile = join(this.#directory, `last${suffix}`);
    this.#overCap = new OverCapList({
      root: this.workspace,
      listFile: join(this.#directory, `over-cap${suffix}`),
      excludeFile: this.#place.excludesFile as string,
      maxBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    });
  }

  checkpoint(options: CheckpointOptions = {}): Promise<Checkpoint> {
    // `paths` is deprecated and ignored: every checkpoint is of the whole workspace.
    return this.#serial(() => this.#snapshot(options.signal), 'record a checkpoint');
  }

  diff(from: string, to?: string, options: { signal?: AbortSignal } = {}) {
    return this.#serial(async () => {
      await this.#assertKnown(from);
      const target = to ?? (await this.#snapshot(options.signal)).id;
      if (to) await this.#assertKnown(to);
      return this.#diffSnapshots(from, target, options.signal);
    }, 'compare checkpoints');
  }

  patch(from: string, to: string, options: { signal?: AbortSignal } = {}): Promise<string> {
    return this.#serial(async () => {
      await this.#assertKnown(from);
      await this.#assertKnown(to);
      const args = ['diff-tree', '-r', '-p', '--no-renames', '--no-color', '--no-ext-diff'];
      const output = await runGit(this.#place, [...args, from, to], { signal: options.signal });
      return output.stdout.toString('utf8');
    }, 'compare checkpoints');
  }

  restore(target: string, options: RestoreOptions = {}): Promise<RestoreResult> {
    return this.#serial(async () => {
      await this.#assertKnown(target);
      const now = await this.#snapshot(options.signal);
      let changes = await this.#diffSnapshots(now.id, target, options.signal);
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
      const ids = changes.flatMap((change) =>
        change.after && change.after.mode !== '040000' ? [change.after.id] : [],
      );
      const contents = await readObjects(this.#place, [...new Set(ids)], options.signal);
      await applyChanges(this.workspace, changes, contents);
      return result;
    }, 'restore a checkpoint');
  }

  uncovered(options: { signal?: AbortSignal } = {}): Promise<UncoveredPath[]> {
    return this.#serial(async () => {
      await this.#snapshot(options.signal);
      return listUncovered(this.#place, this.#overCap.paths, options.signal);
    }, 'list what checkpoints do not cover');
  }

  read(id: string, path: string): Promise<Buffer | undefined> {
    return this.#serial(async () => {
      await this.#assertKnown(id);
      if (encodePath(path).toString('utf8') === path) {
        // A UTF-8 name fits in an argument: one object lookup, no tree listing.
        const blob = await runGit(this.#place, ['cat-file', 'blob', `${id}:${path}`]).catch(
          (error: unknown) => {
            if (error instanceof GitCallError) return undefined;
            throw error;
          },
        );
        return blob?.stdout;
      }
      const entry = (await listTree(this.#place, id)).get(path);
      if (!entry || entry.mode === '040000') return undefined;
      return (await readObjects(this.#place, [entry.id])).get(entry.id);
    }, 'read a checkpoint');
  }

  #serial<T>(action: () => Promise<T>, what: string): Promise<T> {
    const run = this.#queue.then(async () => {
      await this.#init();
      try {
        return await action();
      } catch (error) {
        if (error instanceof CheckpointNotFoundError) throw error;
        if (error instanceof CheckpointStoreMissingError) throw error;
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
      await createGitDir(this.#place, ATTRIBUTES);
      this.#previous = await fs
        .readFile(this.#lastFile, 'utf8')
        .then((text) => text.trim() || undefined)
        .catch(() => undefined);
      if (this.#previous && !(await this.#exists(this.#previous))) this.#previous = undefined;
      if (this.#previous) this.#known.add(this.#previous);
      await this.#overCap.load();
    })().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #snapshot(signal?: AbortSignal): Promise<Checkpoint> {
    const started = performance.now();
    const first = !this.#previous;
    const untracked = first ? await this.#untrackedOverCap(signal) : [];
    await this.#overCap.refresh(untracked);
    await this.#addAll(signal);
    const previous = this.#previous;
    let [tree, changes, files] = await this.#writeTreeAndDiff(previous, signal);
    const grown: string[] = [];
    for (const change of changes) {
      if (
        change.after &&
        change.after.mode !== '120000' &&
        (await this.#overCap.isOver(change.path))
      )
        grown.push(change.path);
    }
    const unpatterned = this.#overCap.paths.filter((path) => /[\r\n]/.test(path));
    if (grown.length > 0 || unpatterned.length > 0) {
      await this.#overCap.refresh(grown);
      const args = ['--literal-pathspecs', 'rm', '--cached', '-q', '--ignore-unmatch'];
      const input = nulInput([...grown, ...unpatterned]);
      const from = ['--pathspec-from-file=-', '--pathspec-file-nul'];
      await runGit(this.#place, [...args, ...from], { input, signal });
      [tree, changes, files] = await this.#writeTreeAndDiff(previous, signal);
    }
    const modes = readModes(this.workspace, files);
    const id = await this.#commit(tree, modes, signal);
    if (previous) {
      changes = await withPermissions(changes, await this.#modesOf(previous), modes, () =>
        this.#listings(previous, id),
      );
    }
    this.#previous = id;
    this.#known.add(id);
    await Promise.all([
      fs.writeFile(join(this.#place.gitDir, 'refs', 'checkpoints', id), `${id}\n`),
      fs.writeFile(this.#lastFile, `${id}\n`),
    ]);
    const skipped = this.#overCap.paths;
    const checkpoint: Checkpoint = { id, changes, skipped, ms: performance.now() - started };
    if (previous) checkpoint.previous = previous;
    return checkpoint;
  }

  /** A commit of `tree` carrying `modes`; fixed identity and date, so equal input, equal id. */
  async #commit(tree: string, modes: Modes, signal?: AbortSignal): Promise<string> {
    // All bits default (umask 022): the tree itself is the snapshot, one git call saved.
    if (Object.keys(modes.files).length + Object.keys(modes.dirs).length === 0) {
      this.#modes.set(tree, modes);
      return tree;
    }
    const input = modesMessage(modes);
    const output = await runGit(this.#place, ['commit-tree', tree, '-F', '-'], { input, signal });
    const id = output.stdout.toString('utf8').trim();
    this.#modes.set(id, modes);
    return id;
  }

  async #modesOf(id: string): Promise<Modes> {
    const cached = this.#modes.get(id);
    if (cached) return cached;
    const type = (await runGit(this.#place, ['cat-file', '-t', id])).stdout.toString().trim();
    const modes =
      type === 'commit'
        ? parseModes((await runGit(this.#place, ['cat-file', 'commit', id])).stdout.toString())
        : noModes();
    this.#modes.set(id, modes);
    return modes;
  }

  #listings(from: string, to: string): Promise<[TreeListing, TreeListing]> {
    return Promise.all([listTree(this.#place, from), listTree(this.#place, to)]);
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

  /**
   * Writes the index as a tree and, at the same time, lists how the index differs from `previous`
   * (`diff-index --cached` reads the same index write-tree turns into the tree, so its changes
   * equal a diff-tree of `previous` against the new tree) and the files it holds (for modes).
   */
  async #writeTreeAndDiff(
    previous: string | undefined,
    signal?: AbortSignal,
  ): Promise<[string, WorkspaceChange[], string[]]> {
    const args = ['diff-index', '--cached', '-r', '-z', '--raw', '--no-renames', '--no-abbrev'];
    const [tree, diff, listed] = await Promise.all([
      runGit(this.#place, ['write-tree'], { signal }),
      previous ? runGit(this.#place, [...args, previous, '--'], { signal }) : undefined,
      runGit(this.#place, ['ls-files', '-z'], { signal }),
    ]);
    const id = tree.stdout.toString('utf8').trim();
    const changes = diff ? parseRawDiff(splitNulPaths(diff.stdout)) : [];
    return [id, changes, splitNulPaths(listed.stdout)];
  }

  async #diffSnapshots(from: string, to: string, signal?: AbortSignal) {
    if (from === to) return [];
    const args = ['diff-tree', '-r', '-z', '--raw', '--no-renames', '--no-abbrev', from, to];
    const changes = parseRawDiff(
      splitNulPaths((await runGit(this.#place, args, { signal })).stdout),
    );
    const [before, after] = await Promise.all([this.#modesOf(from), this.#modesOf(to)]);
    return withPermissions(changes, before, after, () => this.#listings(from, to));
  }

  /** Before the first snapshot: untracked files over the cap (kept out of the object store). */
  async #untrackedOverCap(signal?: AbortSignal): Promise<string[]> {
    const args = ['ls-files', '-z', '-o', '--exclude-standard'];
    const paths = splitNulPaths((await runGit(this.#place, args, { signal })).stdout);
    const large: string[] = [];
    for (const path of paths) if (await this.#overCap.isOver(path)) large.push(path);
    return large;
  }

  async #exists(id: string): Promise<boolean> {
    return runGit(this.#place, ['cat-file', '-e', id]).then(
      () => true,
      () => false,
    );
  }

  async #assertKnown(id: string): Promise<void> {
    if (this.#known.has(id)) return;
    if (!OBJECT_ID.test(id)) throw new CheckpointNotFoundError({ id });
    const type = await runGit(this.#place, ['cat-file', '-t', id]).then(
      (output) => output.stdout.toString('utf8').trim(),
      () => undefined,
    );
    if (type === 'tree' || type === 'commit') {
      this.#known.add(id);
      return;
    }
    // An id the store once recorded, or any id asked of a store that holds no checkpoint at all:
    // the store was deleted or damaged (ids come from the session log).
    const refs = join(this.#place.gitDir, 'refs', 'checkpoints');
    const recorded = await fs.readdir(refs).catch(() => [] as string[]);
    if (recorded.length === 0 || recorded.includes(id))
      throw new CheckpointStoreMissingError({ directory: this.#directory, id });
    throw new CheckpointNotFoundError({ id });
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
