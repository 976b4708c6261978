import type { ApprovalAnswer, ApprovalRequest } from '@spine/protocol';
import {
  type ApprovalDetail,
  approvalDiffFull,
  approvalQuestion,
  type LineApprover,
} from './approval.js';
import type { Style } from './style.js';

/** What one key press means at an approval prompt; `undefined` for a key that means nothing. */
export type ApprovalKey = ApprovalAnswer | 'view' | 'interrupt';

/** One key and the line end typed right after it (one read when the process was slow to read). */
const KEY_THEN_ENTER = /^([^\r\n])(?:\r\n?|\n)$/s;

/**
 * Maps one chunk of raw terminal input to its meaning: `o` once, `a` always, `d` or a lone Esc
 * deny, `v` view the whole diff, Ctrl-C interrupt; anything else (arrows, Enter, other letters,
 * pasted text) nothing. A key followed by one Enter counts as the key: a person used to line
 * prompts types both, and a busy process reads them in one chunk.
 */
export function approvalKey(chunk: string): ApprovalKey | undefined {
  const typed = chunk.replace(KEY_THEN_ENTER, '$1');
  if (typed === '\u0003') return 'interrupt';
  if (typed === '\u001b') return 'deny';
  const key = typed.toLowerCase();
  if (key === 'o') return 'once';
  if (key === 'a') return 'always';
  if (key === 'd') return 'deny';
  if (key === 'v') return 'view';
  return undefined;
}

/** A terminal input that can switch raw mode (a TTY `process.stdin`). */
export interface RawInput {
  /** Listens for key data. */
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  /** Stops listening for key data. */
  off(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  /** Resumes reading. */
  resume(): unknown;
  /** Pauses reading. */
  pause(): unknown;
  /** Switches raw mode (one key at a time, no echo). */
  setRawMode?(mode: boolean): unknown;
  /** Whether raw mode is on now. */
  isRaw?: boolean;
}

/** Options of {@link createKeyApprover}. */
export interface KeyApproverOptions {
  /** The terminal the keys come from; raw mode is on only while a question waits. */
  input: RawInput;
  /** Where the questions are written. */
  output: NodeJS.WritableStream;
  /** Styling of the questions. */
  style: Style;
  /** The diff (and width) to show for a request, if any. */
  detail?: (request: ApprovalRequest) => ApprovalDetail | undefined;
  /** Called on Ctrl-C after the question is denied and raw mode restored (default: raise SIGINT). */
  onInterrupt?: () => void;
}

/**
 * Asks each approval on `output` and decides it with one key on `input`, without Enter: `o` once,
 * `a` always for this session, `d` or Esc deny, `v` prints the whole diff and asks again. Raw mode
 * is switched on for the question and restored after the answer; Ctrl-C denies and then raises
 * SIGINT, as it would without raw mode. Questions asked at once are asked one after the other.
 */
export function createKeyApprover(options: KeyApproverOptions): LineApprover {
  const { input, output, style } = options;
  let previous: Promise<unknown> = Promise.resolve();
  const ask = (request: ApprovalRequest, signal: AbortSignal | undefined) =>
    new Promise<ApprovalAnswer>((resolve) => {
      if (signal?.aborted) return resolve('deny');
      const detail = options.detail?.(request);
      const wasRaw = input.isRaw === true;
      const finish = (answer: ApprovalAnswer, note: string): void => {
        input.off('data', onData);
        signal?.removeEventListener('abort', onAbort);
        input.setRawMode?.(wasRaw);
        input.pause();
        output.write(`${note}\n`);
        resolve(answer);
      };
      const onAbort = (): void => finish('deny', style.dim('denied'));
      const onData = (data: Buffer | string): void => {
        const key = approvalKey(data.toString());
        if (key === undefined) return;
        if (key === 'view') {
          output.write(
            `\n${approvalDiffFull(detail, style)}\n${approvalQuestion(request, style, undefined, detail)}`,
          );
          return;
        }
        if (key === 'interrupt') {
          finish('deny', style.dim('denied'));
          (options.onInterrupt ?? (() => process.kill(process.pid, 'SIGINT')))();
          return;
        }
        finish(
          key,
          style.dim(
            key === 'deny'
              ? 'denied'
              : key === 'always'
                ? 'allowed for this session'
                : 'allowed once',
          ),
        );
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      output.write(approvalQuestion(request, style, undefined, detail));
      input.setRawMode?.(true);
      input.on('data', onData);
      input.resume();
    });
  return {
    approve(request, { signal } = {}) {
      const answer = previous.then(() => ask(request, signal));
      previous = answer;
      return answer;
    },
    close() {
      // Nothing held between questions: raw mode is restored after each answer.
    },
  };
}
