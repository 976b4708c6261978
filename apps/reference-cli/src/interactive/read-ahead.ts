import type { ApprovalQueue } from './approval-queue.js';

/** An MCP server's question (elicitation) waiting for the person's next line. */
export interface OpenElicitation {
  resolve: (line: string) => void;
}

/** What the read-ahead needs from the REPL around it. */
export interface ReadAheadHost {
  /** Whether the input is a terminal (the key gate): there, lines are never held. */
  terminal(): boolean;
  /** Whether a turn is running. */
  turnRunning(): boolean;
  /** Whether the session is ending: no held line is taken any more. */
  quitting(): boolean;
  /** The approval questions; off a terminal, a line read ahead answers the open one. */
  readonly approvals: Pick<ApprovalQueue, 'isOpen' | 'answerEchoed'>;
  /** The open MCP elicitation, if any. */
  elicitation(): OpenElicitation | undefined;
  /** Closes the open MCP elicitation (before it is answered). */
  closeElicitation(): void;
  /** Writes text (the echo of a line that answers an elicitation). */
  write(text: string): void;
  /** The input ended with an approval open and no line left to answer it: deny it. */
  denyOpen(): void;
  /** Enters a held line as if just read; settles once it is handled. */
  enter(line: string): Promise<void>;
  /** The input ended and every line read ahead was taken: the session ends. */
  finished(): void;
}

/**
 * Lines typed or piped ahead, off a terminal: while a turn runs, the next lines answer the
 * questions it asks (approvals, MCP elicitations; answers are lines there), and the rest become
 * the next messages, taken in order once it ends. At the end of input, a question with no line
 * left to answer it is denied (fail closed), and the session ends once the held lines are taken.
 */
export class ReadAhead {
  readonly #host: ReadAheadHost;
  /** Lines read while a turn runs (or while the held lines are taken), in order. */
  #held: string[] = [];
  /** True while the lines held during a turn are taken, in order. */
  #draining = false;
  /** The input ended (Ctrl-D, the end of piped input, the terminal gone): no more answers. */
  #inputEnded = false;

  constructor(host: ReadAheadHost) {
    this.#host = host;
  }

  /**
   * Holds `line` when it must wait: off a terminal, a line read while a turn runs (it may answer
   * the turn's question), or while the lines held before it are taken (`held` marks one of those
   * being taken). Slash commands are never held. Returns whether the line was held.
   */
  hold(line: string, options: { held?: boolean } = {}): boolean {
    const holdable = !this.#host.terminal() && !line.trimStart().startsWith('/');
    if (!holdable || !(this.#host.turnRunning() || (this.#draining && !options.held))) return false;
    this.#held.push(line);
    this.answer();
    return true;
  }

  /**
   * Answers the open question (approval or MCP elicitation) with the next line read ahead,
   * off a terminal; at the end of input with none left, denies it.
   */
  answer(): void {
    const host = this.#host;
    while (host.approvals.isOpen || host.elicitation()) {
      const line = this.#held.shift();
      if (line === undefined && !this.#inputEnded) return;
      // On a terminal one key still answers an approval after Ctrl-D closed the input line.
      if (line === undefined && host.terminal() && !host.elicitation()) return;
      const elicitation = host.elicitation();
      if (elicitation) {
        host.closeElicitation();
        host.write(`${line ?? ''}\n`);
        elicitation.resolve(line?.trim() ?? 'cancel');
      } else if (line !== undefined) {
        host.approvals.answerEchoed(line.trim());
      } else {
        host.denyOpen();
      }
    }
  }

  /**
   * The input ended: once the running turn ends (and the lines read ahead are taken), the
   * session ends. A question open now, or asked later, is denied (fail closed).
   */
  end(): void {
    this.#inputEnded = true;
    this.answer();
    if (!this.#host.turnRunning() && this.#held.length === 0) this.#host.finished();
  }

  /** After a turn: the lines read ahead are taken in order; at the end of input, the session ends. */
  async take(): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    while (!this.#host.turnRunning() && !this.#host.quitting()) {
      const line = this.#held.shift();
      if (line === undefined) break;
      await this.#host.enter(line);
    }
    this.#draining = false;
    if (this.#inputEnded && !this.#host.turnRunning() && this.#held.length === 0)
      this.#host.finished();
  }
}
