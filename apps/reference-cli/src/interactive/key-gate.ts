import { PassThrough } from 'node:stream';

/** A terminal input: the TTY `process.stdin` (raw mode, data, end, error). */
export interface TerminalInput {
  on(event: 'data' | 'end' | 'error', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'data' | 'end' | 'error', listener: (chunk: Buffer | string) => void): unknown;
  setRawMode?(mode: boolean): unknown;
  isRaw?: boolean;
  resume(): unknown;
  pause(): unknown;
}

/** Turns bracketed paste on (DEC mode 2004): a paste arrives between the two markers below. */
export const BRACKETED_PASTE_ON = '\u001b[?2004h';
/** Turns bracketed paste off again. */
export const BRACKETED_PASTE_OFF = '\u001b[?2004l';
const PASTE_START = '\u001b[200~';
const PASTE_END = '\u001b[201~';
/**
 * A line break inside a paste, as it sits in the input line (readline's line has no break):
 * U+2424 SYMBOL FOR NEWLINE, turned back into `\n` when the line is sent ({@link pastedText}).
 */
export const PASTED_BREAK = '\u2424';

/** The text of an entered line, with the line breaks of a paste put back. */
export function pastedText(line: string): string {
  return line.replaceAll(PASTED_BREAK, '\n');
}

/**
 * The REPL's terminal input between the TTY and readline: everything typed goes on to readline,
 * except while {@link KeyGate.capture} is set, when each chunk of key input goes to the capture
 * instead (an approval decided with one key, no Enter, nothing echoed into the input line).
 * readline switches raw mode through it, as it would on the TTY. A bracketed paste reaches
 * readline as one line (its breaks shown as {@link PASTED_BREAK}), so Enter sends it whole.
 * When the terminal goes away (end of input or `EIO` on the TTY), raw mode is no longer
 * switched and `hangup` is emitted once.
 */
export class KeyGate extends PassThrough {
  readonly isTTY = true;
  readonly #input: TerminalInput;
  #capture: ((chunk: string) => void) | undefined;
  /** Inside a bracketed paste (its end marker may come in a later chunk). */
  #pasting = false;
  #gone = false;

  readonly #onData = (chunk: Buffer | string): void => {
    const capture = this.#capture;
    if (capture) capture(chunk.toString());
    else this.write(this.#unpaste(chunk.toString()));
  };
  readonly #onEnd = (): void => {
    this.#hangUp();
  };

  constructor(input: TerminalInput) {
    super();
    this.#input = input;
    input.on('data', this.#onData);
    input.on('end', this.#onEnd);
    // EIO on a TTY read: the terminal hung up. Without a listener it would end the process.
    input.on('error', this.#onEnd);
    input.resume();
  }

  /** Whether the terminal went away (its input ended or failed). */
  get gone(): boolean {
    return this.#gone;
  }

  /** Stops reading the terminal (the REPL ends; nothing keeps the process alive). */
  close(): void {
    this.#capture = undefined;
    this.#input.off('data', this.#onData);
    this.#input.off('end', this.#onEnd);
    this.#input.pause();
    this.end();
  }

  /** Whether the terminal is in raw mode (readline reads this). */
  get isRaw(): boolean {
    return this.#input.isRaw === true;
  }

  /** Switches the terminal's raw mode (readline calls this); a terminal gone is left alone. */
  setRawMode(mode: boolean): this {
    if (this.#gone) return this;
    try {
      this.#input.setRawMode?.(mode);
    } catch {
      // EIO: the terminal hung up between its last read and now; there is no mode to restore.
      this.#hangUp();
    }
    return this;
  }

  /** Sends key input to `handler` instead of readline until {@link release}. */
  capture(handler: (chunk: string) => void): void {
    this.#capture = handler;
  }

  /** Key input goes to readline again. */
  release(): void {
    this.#capture = undefined;
  }

  /** Whether key input is captured now. */
  get capturing(): boolean {
    return this.#capture !== undefined;
  }

  #hangUp(): void {
    if (this.#gone) return;
    this.#gone = true;
    this.emit('hangup');
    this.end();
  }

  /** Drops the paste markers and turns the line breaks inside a paste into {@link PASTED_BREAK}. */
  #unpaste(text: string): string {
    if (!this.#pasting && !text.includes(PASTE_START)) return text;
    let result = '';
    let rest = text;
    while (rest) {
      if (this.#pasting) {
        const end = rest.indexOf(PASTE_END);
        const pasted = end === -1 ? rest : rest.slice(0, end);
        result += pasted.replace(/\r\n|\r|\n/g, PASTED_BREAK);
        if (end === -1) break;
        this.#pasting = false;
        rest = rest.slice(end + PASTE_END.length);
      } else {
        const start = rest.indexOf(PASTE_START);
        result += start === -1 ? rest : rest.slice(0, start);
        if (start === -1) break;
        this.#pasting = true;
        rest = rest.slice(start + PASTE_START.length);
      }
    }
    return result;
  }
}
