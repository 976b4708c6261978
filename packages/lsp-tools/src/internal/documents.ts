import { readFile, stat } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import type { LspClient } from './client.js';

/** A file to open: its path (absolute), LSP language id, and whether it changed this session. */
export interface SyncTarget {
  path: string;
  languageId: string;
  changed?: boolean;
}

interface OpenDocument {
  uri: string;
  version: number;
  text: string;
  mtimeMs: number;
  size: number;
  openedAt: number;
}

/**
 * Keeps a server's view of documents equal to the disk: a file is opened on first use and, when
 * its content changed on disk since, sent again in full (`didChange`) before the next query.
 */
export class DocumentSync {
  private readonly open = new Map<string, OpenDocument>();
  /** `performance.now()` of the last didChange/didClose (content the server knew changed), or 0. */
  private lastChangeAt = 0;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: LspClient,
    private readonly onChangedOnDisk: (path: string) => void,
  ) {}

  /** How many documents are open. */
  get size(): number {
    return this.open.size;
  }

  /**
   * Diagnostics of `path` published before this moment may be stale: the later of its opening
   * and the last change to any open document (a change can alter other files' diagnostics).
   */
  staleBefore(path: string): number {
    return Math.max(this.open.get(path)?.openedAt ?? 0, this.lastChangeAt);
  }

  /** Records a change made outside the open documents (a file created, renamed or deleted). */
  noteExternalChange(): void {
    this.lastChangeAt = performance.now();
  }

  /** The URI of `path` (absolute). */
  static uriOf(path: string): string {
    return pathToFileURL(path).href;
  }

  /**
   * Opens each target that is not open yet and re-syncs every open document whose file changed
   * on disk. Targets flagged `changed` (edited in this session) count as a change when opened,
   * since the server's copy of them may be older than the disk.
   */
  async sync(targets: readonly SyncTarget[]): Promise<void> {
    // Syncs run one at a time, so concurrent queries never open a document twice.
    const run = this.queue.then(async () => {
      const wanted = new Map(targets.map((target) => [target.path, target]));
      const paths = new Set([...this.open.keys(), ...wanted.keys()]);
      await Promise.all([...paths].map((each) => this.syncOne(each, wanted.get(each))));
    });
    this.queue = run.catch(() => undefined);
    await run;
  }

  private async syncOne(path: string, target: SyncTarget | undefined): Promise<void> {
    const known = this.open.get(path);
    let info: { mtimeMs: number; size: number };
    try {
      info = await stat(path);
    } catch {
      if (known) {
        this.open.delete(path);
        this.client.notify('textDocument/didClose', { textDocument: { uri: known.uri } });
        this.lastChangeAt = performance.now();
        this.onChangedOnDisk(path);
      }
      return;
    }
    // Timestamps are coarse (a few ms), so a file touched in the last 2 s is read again anyway.
    const settled = Date.now() - info.mtimeMs > 2000;
    if (known && settled && known.mtimeMs === info.mtimeMs && known.size === info.size) return;
    const text = await readFile(path, 'utf8');
    if (!known) {
      if (target === undefined) return;
      const { languageId } = target;
      const uri = DocumentSync.uriOf(path);
      const openedAt = performance.now();
      this.open.set(path, {
        uri,
        version: 1,
        text,
        mtimeMs: info.mtimeMs,
        size: info.size,
        openedAt,
      });
      this.client.notify('textDocument/didOpen', {
        textDocument: { uri, languageId, version: 1, text },
      });
      if (target.changed) this.lastChangeAt = openedAt;
      return;
    }
    known.mtimeMs = info.mtimeMs;
    known.size = info.size;
    if (known.text === text) return;
    known.text = text;
    known.version += 1;
    this.client.notify('textDocument/didChange', {
      textDocument: { uri: known.uri, version: known.version },
      contentChanges: [{ text }],
    });
    this.lastChangeAt = performance.now();
    this.onChangedOnDisk(path);
  }
}
