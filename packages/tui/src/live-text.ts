// A running tool's output (a shell command's stdout and stderr, in chunks cut anywhere) shown as
// real lines: line feeds and tabs stay layout, everything a terminal would act on stays visible text.
import { visibleText } from '@spine/protocol';

const LAYOUT = { keepLineBreaks: true } as const;

/**
 * One line of tool output (without its line feed) made safe for a terminal: a carriage return
 * restarts the line, as a terminal would show a progress bar's last state, so only the text after
 * the last lone `\r` stays (a `\r` before the end, as in CR LF, is dropped); tabs stay; escape
 * sequences, C0 and C1 controls, bidi and zero-width characters become visible `\xNN`/`\uNNNN`.
 *
 * @example
 * ```ts
 * outputLine('10%\r100%\u001b[2J'); // '100%\\x1b[2J'
 * ```
 */
export function outputLine(raw: string): string {
  const line = raw.endsWith('\r') ? raw.replace(/\r+$/, '') : raw;
  const restart = line.lastIndexOf('\r');
  return visibleText(restart < 0 ? line : line.slice(restart + 1), LAYOUT);
}

/**
 * Multi-line tool output made safe for a terminal: {@link outputLine} on each line, joined by `\n`.
 * Only `\n` and `\t` survive as controls.
 */
export function outputText(raw: string): string {
  return raw.split('\n').map(outputLine).join('\n');
}

/** Formats a count with thousands separators: 1,204. */
export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

/**
 * The output of one running tool call, fed chunk by chunk: completed lines come back safe for a
 * terminal (a chunk may end mid-line or mid-escape: the rest waits for the next chunk), the last
 * `keep` lines are held for a live view, and every line is counted for the fold.
 */
export class OutputTail {
  readonly #keep: number;
  #partial = '';
  #count = 0;
  readonly #last: string[] = [];

  /** @param keep - how many of the last lines {@link OutputTail.tail} returns (at least 1). */
  constructor(keep = 8) {
    this.#keep = Math.max(1, Math.floor(keep));
  }

  /** Adds a chunk; returns the lines it completed, each safe for a terminal. */
  push(chunk: string): string[] {
    const parts = (this.#partial + chunk).split('\n');
    this.#partial = parts.pop() ?? '';
    return parts.map((raw) => this.#add(raw));
  }

  /** Ends the output: the unterminated last line, if any, completes (returned as a list). */
  finish(): string[] {
    if (this.#partial === '') return [];
    const raw = this.#partial;
    this.#partial = '';
    return [this.#add(raw)];
  }

  /** Completed lines so far. */
  get lineCount(): number {
    return this.#count;
  }

  /** The last completed lines (at most `keep`), then the line being written, if any. */
  tail(): string[] {
    const pending = this.#partial === '' ? [] : [outputLine(this.#partial)];
    return [...this.#last, ...pending].slice(-this.#keep);
  }

  #add(raw: string): string {
    const line = outputLine(raw);
    this.#count++;
    this.#last.push(line);
    if (this.#last.length > this.#keep) this.#last.shift();
    return line;
  }
}
