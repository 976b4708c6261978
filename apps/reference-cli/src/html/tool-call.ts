// A proposed tool call: its arguments, and for `write` and `edit` a diff with word highlights.
import type { ToolCallPart } from '@spine/protocol';
import { renderDiffHtml } from './diff.js';
import { inertLine } from './escape.js';
import { foldedPre } from './fold.js';
import { toolSourceMark } from './sources.js';

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The diff a `write` or `edit` call proposes; `written` holds the last content written per path. */
function callDiff(part: ToolCallPart, written: Map<string, string>): string {
  const args = parse(part.arguments) as Record<string, unknown> | undefined;
  if (!args || typeof args.path !== 'string') return '';
  if (part.name === 'write' && typeof args.content === 'string') {
    const before = written.get(args.path) ?? '';
    written.set(args.path, args.content);
    return `<p>write <code>${inertLine(args.path)}</code>${before ? ' (against its last write in this session)' : ''}:</p>${renderDiffHtml(before, args.content)}`;
  }
  if (part.name === 'edit' && Array.isArray(args.edits)) {
    written.delete(args.path);
    return args.edits
      .map((edit: { oldText?: unknown; newText?: unknown }, index: number) =>
        typeof edit.oldText === 'string' && typeof edit.newText === 'string'
          ? `<p>edit ${index + 1} of <code>${inertLine(args.path as string)}</code>:</p>${renderDiffHtml(edit.oldText, edit.newText)}`
          : '',
      )
      .join('');
  }
  return '';
}

/** The HTML of one tool call part. */
export function toolCallHtml(part: ToolCallPart, written: Map<string, string>): string {
  const args = parse(part.arguments);
  const shown = args === undefined ? part.arguments : JSON.stringify(args, null, 2);
  return `<div class="tool call">call <code>${inertLine(part.name)}</code>${toolSourceMark(part.name)} [${inertLine(part.id)}]${args === undefined ? ' <span class="bad">(arguments are not valid JSON)</span>' : ''}${callDiff(part, written) || foldedPre(shown, 'args')}</div>`;
}
