// A pager on the alternate screen: browses long text (a whole session's transcript) and, when
// closed, returns the terminal to the normal screen exactly as it was, its scrollback untouched.
// Each screenful is drawn in one synchronized update (DEC mode 2026); the normal screen is never
// written to while the pager is open.

import { wrapRows } from './markdown/wrap.js';

const ENTER_ALTERNATE = '\u001b[?1049h\u001b[?25l';
const LEAVE_ALTERNATE = '\u001b[?25h\u001b[?1049l';
const SYNC_START = '\u001b[?2026h';
const SYNC_END = '\u001b[?2026l';
const RESET = '\u001b[0m';

/** Where a pager draws and how big the screen is. */
export interface PagerOptions {
  /** The terminal. */
  output: NodeJS.WritableStream;
  /** Rows of the screen (the last one is the pager's status line). */
  rows: () => number;
  /** Columns of the screen. */
  columns: () => number;
  /** Named in the status line (default `transcript`). */
  title?: string;
}

/** What a key did: the pager is still open, or it was closed. */
export type PagerState = 'open' | 'closed';

/**
 * A pager on the alternate screen. `open()` switches to it and draws the first screenful; feed it
 * key input with `key()` (q or Esc closes; j, ↓ or Enter a row down; k or ↑ a row up; space, f
 * or PageDown a page down; b or PageUp a page up; g or Home the top; G or End the end); `resize()`
 * redraws at the new size. Closing switches back: the normal screen and its scrollback are as
 * they were before `open()`.
 *
 * @example
 * ```ts
 * import { Pager } from '@spine/tui';
 * const pager = new Pager(['line one', 'line two'], {
 *   output: process.stdout,
 *   rows: () => process.stdout.rows,
 *   columns: () => process.stdout.columns,
 * });
 * pager.open();
 * process.stdin.setRawMode(true);
 * process.stdin.on('data', (key) => {
 *   if (pager.key(key.toString()) === 'closed') process.exit(0);
 * });
 * ```
 */
export class Pager {
  readonly #lines: readonly string[];
  readonly #options: PagerOptions;
  #top = 0;
  #open = false;
  #rows: string[] = [];
  #width = -1;

  constructor(lines: readonly string[], options: PagerOptions) {
    this.#lines = lines.flatMap((line) => line.split('\n'));
    this.#options = options;
  }

  /** Whether the pager is showing. */
  get isOpen(): boolean {
    return this.#open;
  }

  /** Switches to the alternate screen and draws the first screenful (the end if `atEnd`). */
  open(atEnd = false): void {
    if (this.#open) return;
    this.#open = true;
    this.#layout();
    this.#top = atEnd ? this.#maxTop() : 0;
    this.#write(ENTER_ALTERNATE);
    this.#draw();
  }

  /** Acts on one chunk of key input; returns whether the pager is still open. */
  key(chunk: string): PagerState {
    if (!this.#open) return 'closed';
    const page = Math.max(1, this.#height() - 1);
    const moves: Record<string, number> = {
      j: 1,
      '\r': 1,
      '\n': 1,
      '\u001b[B': 1,
      k: -1,
      '\u001b[A': -1,
      ' ': page,
      f: page,
      '\u001b[6~': page,
      b: -page,
      '\u001b[5~': -page,
      g: -Infinity,
      '\u001b[H': -Infinity,
      '\u001b[1~': -Infinity,
      G: Infinity,
      '\u001b[F': Infinity,
      '\u001b[4~': Infinity,
    };
    if (chunk === 'q' || chunk === 'Q' || chunk === '\u001b' || chunk === '\u0003') {
      this.close();
      return 'closed';
    }
    const move = moves[chunk];
    if (move !== undefined) {
      this.#top = Math.min(this.#maxTop(), Math.max(0, this.#top + move));
      this.#draw();
    }
    return 'open';
  }

  /** The screen changed size: rewraps and redraws. */
  resize(): void {
    if (!this.#open) return;
    this.#layout();
    this.#top = Math.min(this.#top, this.#maxTop());
    this.#draw();
  }

  /** Leaves the alternate screen: the normal screen shows again as it was. */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.#write(LEAVE_ALTERNATE);
  }

  #height(): number {
    return Math.max(1, (this.#options.rows() || 24) - 1);
  }

  #maxTop(): number {
    return Math.max(0, this.#rows.length - this.#height());
  }

  #layout(): void {
    const width = Math.max(1, this.#options.columns() || 80);
    if (width === this.#width) return;
    this.#width = width;
    this.#rows = this.#lines.flatMap((line) => wrapRows(line, width));
  }

  #draw(): void {
    const height = this.#height();
    const shown = this.#rows.slice(this.#top, this.#top + height);
    const body = shown.map((row) => `\u001b[2K${row}${RESET}`);
    while (body.length < height) body.push('\u001b[2K~');
    const last = Math.min(this.#rows.length, this.#top + height);
    const status = `${this.#options.title ?? 'transcript'} · lines ${this.#rows.length === 0 ? 0 : this.#top + 1}–${last} of ${this.#rows.length} · q returns`;
    const fitted = wrapRows(status, this.#width)[0] ?? '';
    this.#write(
      `${SYNC_START}\u001b[H${body.join('\r\n')}\r\n\u001b[2K\u001b[7m${fitted}${RESET}${SYNC_END}`,
    );
  }

  #write(text: string): void {
    if ((this.#options.output as NodeJS.WriteStream).destroyed) return;
    this.#options.output.write(text);
  }
}
