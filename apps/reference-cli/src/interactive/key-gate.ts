import { PassThrough } from 'node:stream';

/** A terminal input: the TTY `process.stdin` (raw mode, data, end). */
export interface TerminalInput {
  on(event: 'data' | 'end', listener: (chunk: Buffer | string) => void): unknown;
  off(event: 'data' | 'end', listener: (chunk: Buffer | string) => void): unknown;
  setRawMode?(mode: boolean): unknown;
  isRaw?: boolean;
  resume(): unknown;
  pause(): unknown;
}

/**
 * The REPL's terminal input between the TTY and readline: everything typed goes on to readline,
 * except while {@link KeyGate.capture} is set, when each chunk of key input goes to the capture
 * instead (an approval decided with one key, no Enter, nothing echoed into the input line).
 * readline switches raw mode through it, as it would on the TTY.
 */
export class KeyGate extends PassThrough {
  readonly isTTY = true;
  readonly #input: TerminalInput;
  #capture: ((chunk: string) => void) | undefined;

  readonly #onData = (chunk: Buffer | string): void => {
    const capture = this.#capture;
    if (capture) capture(chunk.toString());
    else this.write(chunk);
  };
  readonly #onEnd = (): void => {
    this.end();
  };

  constructor(input: TerminalInput) {
    super();
    this.#input = input;
    input.on('data', this.#onData);
    input.on('end', this.#onEnd);
    input.resume();
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

  /** Switches the terminal's raw mode (readline calls this). */
  setRawMode(mode: boolean): this {
    this.#input.setRawMode?.(mode);
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
}
