import { createInterface } from 'node:readline';
import { summarizeArguments } from '@spine/harness';
import type { ApprovalAnswer, ApprovalRequest } from '@spine/protocol';
import { visibleText } from '@spine/protocol';
import { type DiffPreview, moreLinesNote, renderDiff } from './diff/render.js';
import type { Style } from './style.js';

/** What an approval prompt can show besides the request: the diff a `write`/`edit` would make. */
export interface ApprovalDetail {
  /** The file before and after the call; shown as a unified diff instead of the raw arguments. */
  diff?: DiffPreview;
  /** Terminal columns (default 80). */
  width?: number;
  /** Diff lines shown before `N more lines — press v to view all` (default 40; `Infinity` for all). */
  maxLines?: number;
  /** For a `bash` call: the sandbox mode and the network its command gets, shown after the command. */
  shell?: { sandbox: string; network: string };
}

/** Diff lines an approval shows before the rest is counted. */
export const APPROVAL_DIFF_LINES = 40;

/** Characters of one argument shown in an approval prompt before the rest is counted instead. */
const MAX_SHOWN = 8000;

/** One argument, whole (up to {@link MAX_SHOWN} characters), control sequences made visible. */
function shownArgument(name: string, value: unknown): string[] {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  const cut = text.length > MAX_SHOWN ? text.slice(0, MAX_SHOWN) : text;
  const lines = visibleText(cut, { keepLineBreaks: true }).split('\n');
  const out = [
    `  ${visibleText(name)}: ${lines[0]}`,
    ...lines.slice(1).map((line) => `  │ ${line}`),
  ];
  if (cut.length < text.length)
    out.push(`  │ [… ${text.length - cut.length} more characters not shown; deny if unsure]`);
  return out;
}

/**
 * The question shown for an approval request: the tool with its arguments summarised on the first
 * line (a subagent's request starts with its label, `[explore #1] wants to run …`; `label`
 * overrides the default `[explore]`), then, when the summary had to shorten anything, every argument in full (multi-line values
 * keep their lines, marked with │), the reason and the choices. Everything the model or a tool
 * supplied passes through {@link visibleText}, so escape sequences cannot repaint the prompt.
 */
export function approvalQuestion(
  request: ApprovalRequest,
  style: Style,
  label?: string,
  detail?: ApprovalDetail,
): string {
  if (detail?.diff) return diffQuestion(request, style, label, detail, detail.diff);
  const raw = JSON.stringify(request.args ?? {});
  const summary = summarizeArguments(raw, 160);
  const who = label ?? childLabelOf(request);
  const lines = [
    who === undefined
      ? `${style.yellow('?')} ${style.bold(`allow ${visibleText(request.toolName)}`)} ${style.dim(summary)}${shellNote(request, style, detail)}`
      : `${style.yellow('?')} ${style.cyan(who)} ${style.bold(`wants to run ${visibleText(request.toolName)}`)} ${style.dim(summary)}${shellNote(request, style, detail)}`,
  ];
  if (!summaryIsComplete(request.args, summary)) {
    const args = request.args;
    if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
      for (const [name, value] of Object.entries(args)) {
        if (name !== 'escalation') lines.push(...shownArgument(name, value));
      }
    } else lines.push(...shownArgument('arguments', args));
  }
  lines.push(`  ${style.dim(`reason: ${visibleText(request.reason)}`)}`);
  if (request.escalation)
    lines.push(
      `  ${style.dim(`asks for more: ${visibleText(request.escalation.justification)} ${visibleText(JSON.stringify(request.escalation.permissions))}`)}`,
    );
  lines.push(`  [o]nce  [a]lways for this session  [d]eny › `);
  return lines.join('\n');
}

/** The question for a `write`/`edit` with its diff: header, capped diff, reason, choices (`[v]iew all` when capped). */
function diffQuestion(
  request: ApprovalRequest,
  style: Style,
  label: string | undefined,
  detail: ApprovalDetail,
  diff: DiffPreview,
): string {
  const shown = renderDiff(diff, {
    style,
    width: detail.width ?? 80,
    maxLines: detail.maxLines ?? APPROVAL_DIFF_LINES,
  });
  const who = label ?? childLabelOf(request);
  const lines = [
    `${style.yellow('?')} ${who === undefined ? '' : `${style.cyan(who)} `}${shown.header}`,
    ...shown.lines,
  ];
  if (shown.hidden > 0) lines.push(moreLinesNote(shown.hidden, style));
  lines.push(`  ${style.dim(`reason: ${visibleText(request.reason)}`)}`);
  lines.push(
    `  [o]nce  [a]lways for this session  [d]eny${shown.hidden > 0 ? '  [v]iew all' : ''} › `,
  );
  return lines.join('\n');
}

/** ` · sandbox: … · network: …` for a `bash` call with `shell` detail (full when it asks for it). */
function shellNote(request: ApprovalRequest, style: Style, detail?: ApprovalDetail): string {
  if (!detail?.shell || request.toolName !== 'bash') return '';
  const args = request.args as { escalation?: { permissions?: { network?: unknown } } } | null;
  const network =
    args?.escalation?.permissions?.network === true
      ? 'full, if you allow the extra permissions'
      : detail.shell.network;
  return ` ${style.dim(`· sandbox: ${visibleText(detail.shell.sandbox)} · network: ${visibleText(network)}`)}`;
}

/** The whole diff of `detail` (what `v` prints), uncapped; empty without a diff. */
export function approvalDiffFull(detail: ApprovalDetail | undefined, style: Style): string {
  if (!detail?.diff) return '';
  const shown = renderDiff(detail.diff, { style, width: detail.width ?? 80 });
  return [shown.header, ...shown.lines].join('\n');
}

/** `[explore]` for a subagent's request (a `ChildApprovalRequest` of @spine/subagents), else `undefined`. */
function childLabelOf(request: ApprovalRequest): string | undefined {
  const child = (request as { child?: { profile?: { name?: unknown } } }).child;
  const name = child?.profile?.name;
  return typeof name === 'string' ? `[${visibleText(name)}]` : undefined;
}

/** True when the one-line summary shows every argument exactly (nothing cut, escaped or folded). */
function summaryIsComplete(args: unknown, summary: string): boolean {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return false;
  const exact = Object.entries(args)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return exact === summary;
}

/** Maps a typed answer to an approval answer; anything unclear is a denial. */
export function parseApprovalAnswer(text: string): ApprovalAnswer {
  const answer = text.trim().toLowerCase();
  if (answer === 'o' || answer === 'once' || answer === 'y' || answer === 'yes') return 'once';
  if (answer === 'a' || answer === 'always') return 'always';
  return 'deny';
}

/** An approver reading answers line by line from a stream (`spine run` on a terminal uses one). */
export interface LineApprover {
  /** Asks about `request` and resolves with the answer; `deny` when `signal` aborts first. */
  approve(request: ApprovalRequest, options: { signal?: AbortSignal }): Promise<ApprovalAnswer>;
  /** Stops reading `input`. */
  close(): void;
}

/** Options of {@link createLineApprover}. */
export interface ApprovalPromptOptions {
  /** Where the person's answers come from, one per line. */
  input: NodeJS.ReadableStream;
  /** Where the questions are written. */
  output: NodeJS.WritableStream;
  /** Styling of the questions. */
  style: Style;
  /** The diff (and width) to show for a request, if any; the line `v` then prints it whole. */
  detail?: (request: ApprovalRequest) => ApprovalDetail | undefined;
}

/**
 * Asks each approval on `output` and reads the answer from `input`; a line `v` prints the whole
 * diff and asks again. Questions asked at once
 * (parallel subagents) are asked one after the other, each answered by its own line.
 */
export function createLineApprover(options: ApprovalPromptOptions): LineApprover {
  let rl: ReturnType<typeof createInterface> | undefined;
  let previous: Promise<unknown> = Promise.resolve();
  const ask = (request: ApprovalRequest, signal: AbortSignal | undefined) => {
    rl ??= createInterface({ input: options.input, output: options.output, terminal: false });
    const reader = rl;
    return new Promise<ApprovalAnswer>((resolve) => {
      if (signal?.aborted) return resolve('deny');
      const detail = options.detail?.(request);
      const onLine = (line: string): void => {
        if (line.trim().toLowerCase() === 'v' && detail?.diff) {
          options.output.write(
            `${approvalDiffFull(detail, options.style)}\n${approvalQuestion(request, options.style, undefined, detail)}`,
          );
          reader.once('line', onLine);
          return;
        }
        signal?.removeEventListener('abort', onAbort);
        resolve(parseApprovalAnswer(line));
      };
      const onAbort = (): void => {
        reader.off('line', onLine);
        resolve('deny');
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      options.output.write(approvalQuestion(request, options.style, undefined, detail));
      reader.once('line', onLine);
    });
  };
  return {
    approve(request, { signal } = {}) {
      const answer = previous.then(() => ask(request, signal));
      previous = answer;
      return answer;
    },
    close() {
      rl?.close();
    },
  };
}
