import { existsSync, type FSWatcher, watch } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/** LSP `FileChangeType`: 1 created, 2 changed, 3 deleted. */
export type FileChangeType = 1 | 2 | 3;

/** One file event, absolute path. */
export interface FileChange {
  path: string;
  type: FileChangeType;
}

const SKIPPED = new Set(['node_modules', '.git', 'dist', 'build', 'out', 'target', 'coverage']);
const DEBOUNCE_MS = 40;
const DIRECTORY_LIMIT = 20_000;

/** Converts an LSP glob (`**`, `*`, `?`, `{a,b}`, `[…]`) to a regular expression. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let index = 0; index < glob.length; index += 1) {
    const character = glob[index]!;
    if (character === '*' && glob[index + 1] === '*') {
      const slash = glob[index + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      index += slash ? 2 : 1;
    } else if (character === '*') out += '[^/]*';
    else if (character === '?') out += '[^/]';
    else if (character === '{') out += '(?:';
    else if (character === '}') out += ')';
    else if (character === ',') out += '|';
    else if (character === '[' || character === ']') out += character;
    else out += character.replace(/[.+^$()|\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/**
 * Watches a workspace for file changes made by anyone (tools, shell commands, editors): one
 * `fs.watch` per directory, skipping dependency, build and hidden folders, adding new folders
 * as they appear. Changes are reported in batches.
 */
export class WorkspaceWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private pending = new Map<string, FileChangeType>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly onChanges: (changes: FileChange[]) => void,
  ) {}

  /** Starts watching; resolves once every existing folder is watched. */
  async start(): Promise<void> {
    await this.add(this.root, false);
  }

  /** Stops every watch. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private async add(directory: string, announce: boolean): Promise<void> {
    if (this.closed || this.watchers.has(directory) || this.watchers.size >= DIRECTORY_LIMIT)
      return;
    let watcher: FSWatcher;
    try {
      watcher = watch(directory, { persistent: false }, (event, name) => {
        if (name) this.event(join(directory, name.toString()), event);
      });
    } catch {
      return;
    }
    watcher.on('error', () => {
      watcher.close();
      this.watchers.delete(directory);
    });
    this.watchers.set(directory, watcher);
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.') && !SKIPPED.has(entry.name)) await this.add(path, announce);
      } else if (announce && entry.isFile()) {
        this.queue(path, 1);
      }
    }
  }

  private event(path: string, event: string): void {
    if (this.closed) return;
    const rel = relative(this.root, path);
    if (rel.split(sep).some((part) => part.startsWith('.') || SKIPPED.has(part))) return;
    const exists = existsSync(path);
    if (!exists) {
      const watcher = this.watchers.get(path);
      if (watcher) {
        watcher.close();
        this.watchers.delete(path);
      }
      this.queue(path, 3);
      return;
    }
    if (event === 'rename') {
      void readdir(path)
        .then(() => this.add(path, true))
        .catch(() => this.queue(path, 1));
      return;
    }
    this.queue(path, 2);
  }

  private queue(path: string, type: FileChangeType): void {
    const before = this.pending.get(path);
    // Created then changed within one batch is still a creation.
    this.pending.set(path, before === 1 && type === 2 ? 1 : type);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), DEBOUNCE_MS);
    this.timer.unref();
  }

  private flush(): void {
    const batch = [...this.pending].map(([path, type]) => ({ path, type }));
    this.pending = new Map();
    if (batch.length > 0 && !this.closed) this.onChanges(batch);
  }
}
