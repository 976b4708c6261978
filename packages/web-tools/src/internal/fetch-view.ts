// What one web_fetch call shows of a fetched page: a window of the converted content chosen by
// section or offset, and the sentences that tell the model what was left out and how to get it.
import type { WebFetchResult } from '@spine/protocol';
import {
  type MarkdownHeading,
  type MarkdownSlice,
  selectMarkdownWindow,
} from '../markdown-window.js';

/** The part of a fetched page one `web_fetch` call shows. */
export type FetchView = MarkdownSlice;

/** The optional window arguments of `web_fetch`. */
export interface FetchArguments {
  section?: string;
  offset?: number;
}

/** Checks `section` and `offset`; returns the problem as a sentence when they are wrong. */
export function readFetchArguments(args: Record<string, unknown>): FetchArguments | string {
  const read: FetchArguments = {};
  if (args.section !== undefined) {
    if (typeof args.section !== 'string' || args.section.trim() === '' || args.section.length > 200)
      return 'section must be a non-empty string of at most 200 characters';
    read.section = args.section;
  }
  if (args.offset !== undefined) {
    if (!Number.isSafeInteger(args.offset) || (args.offset as number) < 0)
      return 'offset must be a non-negative integer';
    read.offset = args.offset as number;
  }
  if (read.section !== undefined && read.offset !== undefined)
    return 'give section or offset, not both';
  return read;
}

const MAX_LISTED = 30;

function headingLabel(heading: MarkdownHeading): string {
  return JSON.stringify(heading.text.replace(/\s+/g, ' ').slice(0, 120));
}

/** Chooses the window of a fetched page; returns an error sentence for a bad section or offset. */
export function fetchView(
  result: WebFetchResult,
  options: FetchArguments & { maxChars: number },
): FetchView | string {
  const window = selectMarkdownWindow(result.content, options);
  if (window.ok) return window;
  const listed = window.headings.slice(0, MAX_LISTED).map(headingLabel).join(', ');
  return `web_fetch: ${window.error} on ${result.finalUrl}.${listed ? ` Sections: ${listed}${window.headings.length > MAX_LISTED ? ', …' : ''}.` : ' The page has no section headings.'}`;
}

/** The lines that say which part of the content is shown and how to get the rest. */
export function describeView(view: FetchView): string[] {
  const lines: string[] = [];
  if (view.section) lines.push(`Section: ${headingLabel(view.section)}.`);
  const partial = view.start > 0 || view.end < view.total;
  if (partial) {
    lines.push(
      `Showing characters ${view.start}–${view.end} of ${view.total} of the converted content.`,
    );
  }
  if (view.end < view.total) {
    const left = view.omittedSections;
    const listed = left.slice(0, MAX_LISTED).map(headingLabel).join(', ');
    const more = left.length > MAX_LISTED ? `, and ${left.length - MAX_LISTED} more` : '';
    lines.push(
      `Not shown: ${view.total - view.end} characters after this part${left.length > 0 ? `, with the sections ${listed}${more}` : ''}.`,
      `To read on, call web_fetch again with the same url and offset: ${view.end}${left.length > 0 ? ', or with section: one of those headings' : ''}.`,
    );
  }
  return lines;
}
