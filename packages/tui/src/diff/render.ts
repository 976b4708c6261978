import { visibleText } from '@spine/protocol';
import { diffWordsWithSpace, type StructuredPatch, structuredPatch } from 'diff';
import type { Style } from '../style.js';

/** What a `write` or `edit` call would change: the file before and after. */
export interface DiffPreview {
  /** `edit` or `write`; names the header (`Edit path`, `Write path`). */
  kind: 'edit' | 'write';
  /** Workspace-relative path, as shown. */
  path: string;
  /** The file now (empty for a file `write` would create). */
  before: string;
  /** The file after the call. */
  after: string;
}

/** Options of {@link renderDiff}. */
export interface RenderDiffOptions {
  /** Styling; plain text when its colours are off. */
  style: Style;
  /** Columns of the terminal; longer lines are cut with `…`. Default 80. */
  width?: number;
  /** Diff lines shown before the rest is counted (`N more lines — press v to view all`). Default: all. */
  maxLines?: number;
  /** Context lines around each change. Default 3. */
  context?: number;
}

/** A rendered diff: its lines, what was left out, and the patch they show. */
export interface RenderedDiff {
  /** Header line `Edit path (+a −r)`. */
  header: string;
  /** Hunk headers and gutter lines, up to `maxLines`. */
  lines: string[];
  /** Diff lines left out by `maxLines`. */
  hidden: number;
  /** Lines added and removed. */
  added: number;
  /** Lines removed. */
  removed: number;
  /** The structured patch shown (jsdiff); applying it to `before` yields `after`. */
  patch: StructuredPatch;
}

/** One run of text on a diff line; `mark` is a word-level change. */
interface Segment {
  text: string;
  mark: boolean;
}

const INVERSE = (text: string): string => `\u001b[7m${text}\u001b[27m`;

/** True when `style` emits colour (styles on). */
function coloured(style: Style): boolean {
  return style.red('x') !== 'x';
}

/** A line of file text made safe for the terminal (control sequences visible, tabs as 2 spaces). */
function safe(text: string): string {
  return visibleText(text, { keepLineBreaks: true }).replaceAll('\t', '  ');
}

/** Word-level segments of a removed line (`side` 'old') or an added line ('new') against its pair. */
function wordSegments(oldLine: string, newLine: string, side: 'old' | 'new'): Segment[] {
  const out: Segment[] = [];
  for (const part of diffWordsWithSpace(oldLine, newLine)) {
    if (side === 'old' && part.added) continue;
    if (side === 'new' && part.removed) continue;
    out.push({ text: safe(part.value), mark: Boolean(part.added || part.removed) });
  }
  return out;
}

/** Cuts segments to `budget` characters, ending with `…` when anything was cut. */
function cut(segments: Segment[], budget: number): Segment[] {
  const total = segments.reduce((sum, s) => sum + s.text.length, 0);
  if (total <= budget) return segments;
  const out: Segment[] = [];
  let left = Math.max(0, budget - 1);
  for (const segment of segments) {
    if (left <= 0) break;
    out.push({ text: segment.text.slice(0, left), mark: segment.mark });
    left -= segment.text.length;
  }
  out.push({ text: '…', mark: false });
  return out;
}

/** One gutter line: `  12 - text`, coloured by its sign, word changes inverse when colours are on. */
function gutterLine(
  number: number | undefined,
  sign: ' ' | '+' | '-',
  segments: Segment[],
  numberWidth: number,
  options: Required<Pick<RenderDiffOptions, 'style' | 'width'>>,
): string {
  const gutter = `${number === undefined ? ''.padStart(numberWidth) : String(number).padStart(numberWidth)} ${sign} `;
  const shown = cut(segments, Math.max(1, options.width - gutter.length));
  const { style } = options;
  const paint = sign === '+' ? style.green : sign === '-' ? style.red : (t: string) => t;
  const on = coloured(style);
  const body = shown.map((s) => (s.mark && on ? INVERSE(s.text) : s.text)).join('');
  return sign === ' ' ? `${style.dim(gutter)}${body}` : paint(`${gutter}${body}`);
}

/** Renders one hunk's lines, pairing removed with added lines for word-level highlights. */
function hunkLines(
  hunk: StructuredPatch['hunks'][number],
  numberWidth: number,
  options: Required<Pick<RenderDiffOptions, 'style' | 'width'>>,
): string[] {
  const out: string[] = [];
  let oldNo = hunk.oldStart;
  let newNo = hunk.newStart;
  const lines = hunk.lines.filter((line) => !line.startsWith('\\'));
  for (let i = 0; i < lines.length; ) {
    const line = lines[i] as string;
    if (line[0] === ' ') {
      out.push(
        gutterLine(
          oldNo++,
          ' ',
          [{ text: safe(line.slice(1)), mark: false }],
          numberWidth,
          options,
        ),
      );
      newNo++;
      i++;
      continue;
    }
    const removed: string[] = [];
    const added: string[] = [];
    while (i < lines.length && (lines[i] as string)[0] === '-')
      removed.push((lines[i++] as string).slice(1));
    while (i < lines.length && (lines[i] as string)[0] === '+')
      added.push((lines[i++] as string).slice(1));
    for (const [k, text] of removed.entries()) {
      const pair = added[k];
      const segments =
        pair === undefined ? [{ text: safe(text), mark: false }] : wordSegments(text, pair, 'old');
      out.push(gutterLine(oldNo++, '-', segments, numberWidth, options));
    }
    for (const [k, text] of added.entries()) {
      const pair = removed[k];
      const segments =
        pair === undefined ? [{ text: safe(text), mark: false }] : wordSegments(pair, text, 'new');
      out.push(gutterLine(newNo++, '+', segments, numberWidth, options));
    }
  }
  return out;
}

/**
 * Renders what a `write` or `edit` would change as a unified diff for an approval: a header
 * `Edit path (+a −r)`, `@@` hunk headers, line numbers, a `+`/`−`/space gutter and word-level
 * highlights on paired removed and added lines (inverse, only when the style has colours). All file
 * text passes through {@link visibleText} first. Lines past `maxLines` are counted in `hidden`.
 */
export function renderDiff(preview: DiffPreview, options: RenderDiffOptions): RenderedDiff {
  const width = options.width ?? 80;
  const patch = structuredPatch(preview.path, preview.path, preview.before, preview.after, '', '', {
    context: options.context ?? 3,
  });
  let added = 0;
  let removed = 0;
  let maxNumber = 1;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line[0] === '+') added++;
      else if (line[0] === '-') removed++;
    }
    maxNumber = Math.max(maxNumber, hunk.oldStart + hunk.oldLines, hunk.newStart + hunk.newLines);
  }
  const numberWidth = String(maxNumber).length;
  const all: string[] = [];
  for (const hunk of patch.hunks) {
    all.push(
      options.style.cyan(
        `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`.slice(
          0,
          width,
        ),
      ),
    );
    all.push(...hunkLines(hunk, numberWidth, { style: options.style, width }));
  }
  const limit = options.maxLines ?? Number.POSITIVE_INFINITY;
  const lines = all.length > limit ? all.slice(0, limit) : all;
  const verb = preview.kind === 'edit' ? 'Edit' : 'Write';
  const header = `${options.style.bold(`${verb} ${safe(preview.path)}`)} (${options.style.green(`+${added}`)} ${options.style.red(`−${removed}`)})`;
  return { header, lines, hidden: all.length - lines.length, added, removed, patch };
}

/** The line saying how much of the diff is not shown: `N more lines — press v to view all`. */
export function moreLinesNote(hidden: number, style: Style): string {
  return style.dim(`${hidden} more line${hidden === 1 ? '' : 's'} — press v to view all`);
}
