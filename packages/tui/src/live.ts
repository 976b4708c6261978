import type { Agent } from '@spine/agent-loop';
import { preview, summarizeArguments } from '@spine/harness';
import { visibleText } from '@spine/protocol';
import { StreamText } from './internal/stream-text.js';
import { formatCount, OutputTail } from './live-text.js';
import type { CodeHighlighter } from './markdown/highlight.js';
import { createMarkdownStream } from './markdown/stream.js';
import { displayWidth } from './markdown/width.js';
import { hardWrap } from './markdown/wrap.js';
import { fit } from './panel-lines.js';
import { planChecklistLines } from './plan-checklist.js';
import type { Style } from './style.js';

/** Notices for steps that ended without a complete answer; the turn itself still completes. */
const STOP_NOTICES: Readonly<Record<string, string>> = {
  length: 'the answer was cut at the output-token limit; ask the model to continue',
  refusal: 'the model declined to answer (refusal)',
  'content-filter': "the provider's content filter stopped the answer",
};

/** What was printed last: answer text, a notice, or the end of a step's text. */
type BlockKind = 'text' | 'notice' | 'step';

/** Lines of a running tool's output the live region shows. */
const LIVE_LINES = 5;

/** Where live output goes: the answer text, and everything else (tool lines, notices). */
export interface LiveStreams {
  /** The answer text and reasoning, streamed. */
  text: NodeJS.WritableStream;
  /** Tool lines, retries, compactions and stop notices, one line each. */
  notices: NodeJS.WritableStream;
}

/** Options of {@link attachLiveOutput}. */
export interface LiveOptions {
  /** Whether reasoning text is shown (asked for each reasoning block; default always). */
  showReasoning?: () => boolean;
  /** Print subagents' progress lines (default true; a subagent panel shows them instead). */
  childProgress?: boolean;
  /**
   * Render the answer text as Markdown, block by block as each finishes (for a terminal; leave
   * unset for pipes, which get the text as written). `width` is in columns (a function: asked
   * for each block, so blocks finished after a resize fit the new width).
   */
  markdown?: {
    /** Columns, or a function asked for each block. */
    width: number | (() => number);
    hyperlinks?: boolean;
    highlight?: CodeHighlighter;
  };
  /**
   * With `markdown`: called with the block still being streamed (as the model wrote it, NOT
   * terminal-safe; `''` once nothing is pending), for a live region's preview such as
   * {@link SubagentPanel.preview}. Without it the block shows only once finished.
   */
  pending?: (text: string) => void;
  /**
   * Lines of a running tool's output (a shell command's stdout and stderr) printed as they come;
   * the rest is counted and folded into one line when the call ends (default 20, 0 prints none).
   */
  outputLines?: number;
  /**
   * A live region for running tools' output (a terminal): while a call runs, its last lines go
   * here (`undefined` when it ended) instead of being printed; when it ends, its last
   * `outputLines` lines are printed, after one line counting the earlier ones.
   */
  liveTail?: (toolCallId: string, lines: readonly string[] | undefined) => void;
  /**
   * Hold the text of each model attempt until the attempt completes (its step ends, or its tool
   * calls come), so the partial text of an attempt that broke off and is retried is never
   * written: for a pipe, whose reader wants only the answer that was kept. Without it (a
   * terminal) the partial text stays, followed by a dim line saying it was abandoned.
   */
  holdAttempts?: boolean;
}

/**
 * Prints an agent's live events for a person: streamed text, reasoning dimmed, each tool call
 * with its arguments summarised, each result with a preview, retries, compactions, and a notice
 * when a step's answer was cut short (output-token limit, refusal, content filter). Returns a
 * function that detaches the listeners.
 */
export function attachLiveOutput(
  agent: Agent,
  streams: LiveStreams,
  style: Style,
  options: LiveOptions = {},
): () => void {
  const showReasoning = options.showReasoning ?? (() => true);
  const outputLines = Math.max(0, options.outputLines ?? 20);
  const outputs = new Map<string, { tail: OutputTail; shown: number }>();
  // On a terminal (Markdown on) tool lines fit its width: a summary is cut, output is wrapped.
  const columns = (): number | undefined => {
    const width = options.markdown?.width;
    return typeof width === 'function' ? width() : width;
  };
  const cut = (text: string, used: number): string => {
    const width = columns();
    return width === undefined ? text : fit(text, Math.max(2, width - used));
  };
  const printOutput = (entry: { shown: number }, lines: string[]): void => {
    const width = columns();
    for (const line of lines) {
      if (entry.shown >= outputLines) return;
      entry.shown++;
      newline();
      const rows = width === undefined ? [line] : hardWrap(line, Math.max(2, width - 6));
      printNotice(rows.map((row) => `    ${style.dim('│')} ${row}\n`).join(''));
    }
  };
  const fold = (count: number, which: string): void => {
    if (count <= 0) return;
    newline();
    printNotice(
      style.dim(
        `    … ${formatCount(count)} ${which} line${count === 1 ? '' : 's'} (full output: spine show ${visibleText(agent.session.id)} --events)\n`,
      ),
    );
  };
  const endOutput = (toolCallId: string): void => {
    const entry = outputs.get(toolCallId);
    if (entry === undefined) return;
    outputs.delete(toolCallId);
    const last = entry.tail.finish();
    if (options.liveTail === undefined) {
      printOutput(entry, last);
      fold(entry.tail.lineCount - entry.shown, 'more');
      return;
    }
    options.liveTail(toolCallId, undefined);
    const kept = outputLines === 0 ? [] : entry.tail.tail().slice(-outputLines);
    fold(entry.tail.lineCount - kept.length, 'earlier');
    printOutput(entry, kept);
  };
  let inReasoning = false;
  let midLine = false;
  // Each streamed block is sanitised as one text, whatever the cuts between its deltas.
  const answerText = new StreamText();
  const reasoningText = new StreamText();
  // With `holdAttempts`: what was written to `streams.text` (notices sharing that stream too, so
  // the order holds), and the state and held length before the attempt, to drop it whole.
  const held: string[] = [];
  let beforeAttempt: { midLine: boolean; lastKind: BlockKind | undefined; held: number } = {
    midLine: false,
    lastKind: undefined,
    held: 0,
  };
  // Whether the current attempt has streamed any text (a retry then marks it as abandoned).
  let attemptShown = false;
  const startAttempt = (): void => {
    if (attemptShown) return;
    attemptShown = true;
    beforeAttempt = { midLine, lastKind, held: held.length };
  };
  const write = (stream: NodeJS.WritableStream, text: string): void => {
    if (text === '') return;
    if (options.holdAttempts && stream === streams.text) held.push(text);
    else emit(stream, text);
    midLine = !text.endsWith('\n');
  };
  const emit = (stream: NodeJS.WritableStream, text: string): void => {
    // A closed terminal or pipe (EPIPE, hang-up) does not stop the run: the log is the record.
    if ((stream as NodeJS.WriteStream).destroyed) return;
    stream.write(text);
  };
  /** The held text of an attempt that completed goes out. */
  const release = (): void => {
    if (held.length > 0) emit(streams.text, held.splice(0).join(''));
  };
  const markdown = options.markdown && createMarkdownStream({ ...options.markdown, style });
  // Rendered Markdown is set apart from tool lines and notices by a blank line, as its own
  // blocks are from each other (a terminal only; piped text is passed on as written).
  // `step`: a step's text ended; the next block, of any kind, is set apart from it.
  let lastKind: BlockKind | undefined;
  const separate = (kind: 'text' | 'notice'): void => {
    if (markdown && lastKind !== undefined && lastKind !== kind) write(streams.text, '\n');
    lastKind = kind;
  };
  const printNotice = (text: string): void => {
    separate('notice');
    write(streams.notices, text);
  };
  const writeLines = (lines: string[]): void => {
    if (lines.length === 0) return;
    separate('text');
    write(streams.text, `${lines.join('\n')}\n`);
  };
  let previewing = false;
  const showPending = (): void => {
    if (!markdown || !options.pending) return;
    const text = markdown.pending();
    if (text === '' && !previewing) return;
    previewing = text !== '';
    options.pending(text);
  };
  /** Ends the reasoning being streamed: the rest of its text, dimmed. */
  const endReasoning = (): void => {
    const rest = reasoningText.end();
    if (rest !== '') write(streams.text, style.dim(rest));
  };
  /** Ends the block being streamed (answer or reasoning) and the line it is on. */
  const newline = (): void => {
    endReasoning();
    write(streams.text, answerText.end());
    if (markdown) {
      const rest = markdown.end();
      showPending();
      writeLines(rest);
    }
    if (midLine) write(streams.text, '\n');
  };
  const onReasoning = ({ text }: { text: string }): void => {
    startAttempt();
    if (!inReasoning) {
      newline();
      write(
        streams.text,
        style.dim(showReasoning() ? 'thinking: ' : 'thinking… (collapsed; /reasoning shows it)'),
      );
      inReasoning = true;
    }
    if (!showReasoning()) return;
    const safe = reasoningText.push(text);
    if (safe !== '') write(streams.text, style.dim(safe));
  };
  const onText = ({ text }: { text: string }): void => {
    startAttempt();
    if (inReasoning) {
      endReasoning();
      write(streams.text, '\n');
      inReasoning = false;
    }
    if (markdown) {
      const done = markdown.push(text);
      // The preview changes first, so a finished block is never shown twice for a moment.
      showPending();
      writeLines(done);
    } else write(streams.text, answerText.push(text));
  };
  /** The current attempt completed: its text is the kept answer. */
  const attemptDone = (): void => {
    attemptShown = false;
    release();
  };
  const onToolCall = ({ call }: { call: { name: string; arguments: string } }): void => {
    inReasoning = false;
    newline();
    attemptDone();
    const name = visibleText(call.name);
    const summary = cut(summarizeArguments(call.arguments), 5 + displayWidth(name));
    printNotice(`  ${style.yellow('→')} ${name} ${style.dim(summary)}\n`);
  };
  const onToolResult = ({
    result,
  }: {
    result: {
      toolCallId: string;
      toolName: string;
      content: string;
      isError: boolean;
      outcome?: string;
    };
  }): void => {
    endOutput(result.toolCallId);
    newline();
    const failed = `✗ ${result.outcome ?? 'error'}`;
    const mark = result.isError ? style.red(failed) : style.green('✓');
    // The agent's plan is shown whole, as a compact checklist.
    if (result.toolName === 'update_plan' && !result.isError) {
      printNotice(`${planChecklistLines(result.content, mark, style).join('\n')}\n`);
      return;
    }
    const name = visibleText(result.toolName);
    const used = 4 + displayWidth(result.isError ? failed : '✓') + displayWidth(name);
    printNotice(`  ${mark} ${name} ${style.dim(cut(preview(result.content, 100), used))}\n`);
  };
  const onRetry = (event: {
    failedAttempt: number;
    nextAttempt: number;
    delayMs: number;
    reason: string;
  }): void => {
    inReasoning = false;
    if (options.holdAttempts) abandonHeld();
    else if (attemptShown) markDiscarded(`attempt ${event.failedAttempt} broke off, retrying`);
    attemptShown = false;
    newline();
    printNotice(
      style.yellow(
        `  retry: attempt ${event.nextAttempt} in ${event.delayMs} ms (${visibleText(event.reason)})\n`,
      ),
    );
  };
  const onCompaction = ({
    outcome,
  }: {
    outcome: { status: string; tokensBefore?: number; tokensAfter?: number; message?: string };
  }): void => {
    if (outcome.status === 'not-needed' || outcome.status === 'disabled') return;
    newline();
    const figures =
      outcome.tokensBefore === undefined
        ? ''
        : ` ${outcome.tokensBefore} → ${outcome.tokensAfter ?? '?'} tokens`;
    printNotice(
      style.dim(
        `  compaction ${outcome.status}${figures}${outcome.message ? `: ${visibleText(outcome.message)}` : ''}\n`,
      ),
    );
  };
  // On a terminal the text of an attempt that broke off stays: a dim line says it is no answer.
  const markDiscarded = (what: string): void => {
    newline();
    separate('notice');
    write(streams.text, style.dim(`  — ${what}; the text above is discarded —\n`));
  };
  /** Drops the held text of an attempt that broke off, as if it had never been streamed. */
  const abandonHeld = (): void => {
    answerText.discard();
    reasoningText.discard();
    if (markdown) {
      markdown.end();
      showPending();
    }
    if (attemptShown) held.length = beforeAttempt.held;
    if (attemptShown) ({ midLine, lastKind } = beforeAttempt);
  };
  const onStepEnd = ({ finishReason }: { finishReason: string }): void => {
    inReasoning = false;
    // The step's text is a block of its own: the next step's text starts on a new line (after
    // a blank line when rendered), even when this one did not end with a line feed.
    newline();
    attemptDone();
    if (lastKind === 'text') lastKind = 'step';
    const notice = STOP_NOTICES[finishReason];
    if (notice === undefined) return;
    printNotice(style.yellow(`  ${notice} (finish reason ${finishReason})\n`));
  };
  // Progress a running tool reports, such as a subagent's current tool: one dim line each.
  // A progress message without data is a chunk of the tool's output (bash streams its own so):
  // shown as real lines, safe for the terminal, up to `outputLines`.
  const onProgress = ({
    toolCallId,
    message,
    data,
  }: {
    toolCallId: string;
    message?: string;
    data?: unknown;
  }): void => {
    if (message === undefined) return;
    if (data === undefined) {
      let entry = outputs.get(toolCallId);
      if (entry === undefined) {
        entry = { tail: new OutputTail(Math.max(outputLines, LIVE_LINES)), shown: 0 };
        outputs.set(toolCallId, entry);
      }
      const done = entry.tail.push(message);
      if (options.liveTail) options.liveTail(toolCallId, entry.tail.tail().slice(-LIVE_LINES));
      else printOutput(entry, done);
      return;
    }
    const fromChild = typeof data === 'object' && data !== null && 'childSessionId' in data;
    if (fromChild && options.childProgress === false) return;
    newline();
    printNotice(style.dim(`    ↳ ${visibleText(message)}\n`));
  };
  const onTurnEnd = ({ reason }: { reason: string }): void => {
    for (const id of [...outputs.keys()]) endOutput(id);
    inReasoning = false;
    // A failed attempt's text is no answer; an aborted turn's text is shown as it was streamed.
    if (reason === 'error' && attemptShown && options.holdAttempts) abandonHeld();
    else if (reason === 'error' && attemptShown) markDiscarded('the attempt broke off');
    newline();
    attemptDone();
    lastKind = undefined;
  };
  agent.on('reasoning-delta', onReasoning);
  agent.on('text-delta', onText);
  agent.on('tool-call', onToolCall);
  agent.on('tool-result', onToolResult);
  agent.on('retry', onRetry);
  agent.on('compaction', onCompaction);
  agent.on('step-end', onStepEnd);
  agent.on('turn-end', onTurnEnd);
  agent.on('tool-progress', onProgress);
  return () => {
    agent.off('tool-progress', onProgress);
    agent.off('reasoning-delta', onReasoning);
    agent.off('text-delta', onText);
    agent.off('tool-call', onToolCall);
    agent.off('tool-result', onToolResult);
    agent.off('retry', onRetry);
    agent.off('compaction', onCompaction);
    agent.off('step-end', onStepEnd);
    agent.off('turn-end', onTurnEnd);
  };
}
