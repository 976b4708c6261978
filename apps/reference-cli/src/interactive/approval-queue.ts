import type { ApprovalAnswer, ApprovalRequest } from '@spine/protocol';
import {
  type ApprovalDetail,
  approvalDiffFull,
  approvalKey,
  approvalQuestion,
  parseApprovalAnswer,
  type Style,
  type SubagentPanel,
} from '@spine/tui';
import type { KeyGate } from './key-gate.js';

/** What the queue needs from the REPL around it. */
export interface ApprovalQueueHost {
  readonly style: Style;
  /** Where a question goes when there is no panel (before the session opened). */
  readonly out: NodeJS.WritableStream;
  /** The live panel, when there is one: it holds output back while a question waits. */
  panel(): SubagentPanel | undefined;
  /** The key gate on a terminal: one key decides. */
  gate(): KeyGate | undefined;
  /** A subagent's label (`explore #1`) and the diff or command detail of a request. */
  describe(request: ApprovalRequest): {
    label: string | undefined;
    detail: ApprovalDetail | undefined;
  };
  /** Prints a finished line. */
  print(text: string): void;
  /** Ctrl-C typed at a question. */
  interrupt(): void;
  /**
   * A question was just shown (called once the call stack unwinds): off a terminal, a line read
   * ahead answers it, and at the end of input it is denied.
   */
  opened(): void;
}

interface OpenQuestion {
  resolve: (answer: ApprovalAnswer) => void;
  request: ApprovalRequest;
  label: string | undefined;
  detail: ApprovalDetail | undefined;
}

/**
 * The REPL's approval questions, one at a time: parallel subagents may ask at once, and each
 * waits its turn. On a terminal one key decides (o, a, d or Esc; v views the whole diff), without
 * Enter; otherwise the next typed line answers.
 */
export class ApprovalQueue {
  readonly #host: ApprovalQueueHost;
  #open: OpenQuestion | undefined;
  #waiting: { request: ApprovalRequest; resolve: (answer: ApprovalAnswer) => void }[] = [];

  constructor(host: ApprovalQueueHost) {
    this.#host = host;
  }

  /** Whether a question is open (the next typed line answers it). */
  get isOpen(): boolean {
    return this.#open !== undefined;
  }

  /** Asks the person; resolves with their answer (`deny` if the turn ends first). */
  ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    return new Promise((resolve) => {
      this.#waiting.push({ request, resolve });
      if (!this.#open) this.#next();
    });
  }

  /** Answers the open question with a typed line (`v` views the whole diff). */
  answerLine(line: string): void {
    this.#decide(line.toLowerCase() === 'v' ? 'view' : parseApprovalAnswer(line));
  }

  /** Answers the open question with a line read ahead, echoed after it as if typed there. */
  answerEchoed(line: string): void {
    if (!this.#open) return;
    const answer = line.toLowerCase() === 'v' ? 'view' : parseApprovalAnswer(line);
    this.#decide(answer, line);
  }

  /** Denies the open question, echoing `echo` after it as the answer (`(end of input)`). */
  denyOpen(echo: string): void {
    this.#decide('deny', echo);
  }

  /** Denies every open and waiting question (Ctrl-C, end of the turn). */
  denyAll(): void {
    this.#host.gate()?.release();
    this.#open?.resolve('deny');
    this.#open = undefined;
    for (const waiting of this.#waiting.splice(0)) waiting.resolve('deny');
    this.#host.panel()?.release();
  }

  /** Shows the next waiting question; a subagent's is labelled `[explore #1]`. */
  #next(): void {
    const next = this.#waiting.shift();
    if (!next) return;
    const { label, detail } = this.#host.describe(next.request);
    this.#open = { resolve: next.resolve, request: next.request, label, detail };
    this.#show(`\n${approvalQuestion(next.request, this.#host.style, label, detail)}`);
    queueMicrotask(() => this.#host.opened());
    // On a terminal one key decides (o, a, d or Esc, v views the whole diff); no Enter.
    this.#host.gate()?.capture((chunk) => {
      const key = approvalKey(chunk);
      if (key === 'interrupt') this.#host.interrupt();
      // The key is echoed after the question, as a typed answer would be.
      // (An answering chunk is one key, or one key and its Enter: its first character is the key.)
      else if (key !== undefined)
        this.#decide(key, chunk[0] === '\u001b' ? 'Esc' : chunk.charAt(0));
    });
  }

  #show(text: string): void {
    const panel = this.#host.panel();
    if (panel) panel.ask(text);
    else this.#host.out.write(text);
  }

  /** Answers the open question (`view` shows the whole diff and asks again). */
  #decide(answer: ApprovalAnswer | 'view', key?: string): void {
    if (!this.#open) return;
    const { resolve, request, label, detail } = this.#open;
    const style = this.#host.style;
    if (answer === 'view' && detail) {
      const echo = key ? `${key}\n` : '\n';
      const full = approvalDiffFull(detail, style);
      this.#show(`${echo}${full}\n${approvalQuestion(request, style, label, detail)}`);
      return;
    }
    const decided = answer === 'view' ? parseApprovalAnswer('v') : answer;
    this.#host.gate()?.release();
    this.#open = undefined;
    const note = `${key ? `${key}\n` : ''}${style.dim(
      decided === 'deny'
        ? 'denied'
        : decided === 'always'
          ? 'allowed for this session'
          : 'allowed once',
    )}`;
    // The note, then whatever was held back while the question waited.
    const panel = this.#host.panel();
    if (panel) panel.release(`${note}\n`);
    else this.#host.print(note);
    resolve(decided);
    this.#next();
  }
}
