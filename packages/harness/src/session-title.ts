import type { SessionTitleBody } from '@spine/protocol';
import type { Session } from '@spine/session-log';
import { readSessionIndex, writeSessionIndex } from './session-index.js';

/** The longest title derived from a request, in graphemes (a person's own may be longer). */
export const AUTO_TITLE_MAX = 60;
/** The longest title a person may set, in graphemes (the log format caps it at 200 units). */
export const PERSON_TITLE_MAX = 100;
/** The title of a session whose first request has nothing printable. */
export const UNTITLED = 'Untitled session';

// Control characters (C0, DEL, C1), format characters (bidi overrides and isolates, zero-width
// marks) except the zero-width joiner of emoji sequences, and the Unicode line separators.
const HIDDEN = /[\p{Cc}\p{Cs}\p{Zl}\p{Zp}]|(?!\u200d)\p{Cf}/gu;
const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (part) => part.segment);
}

/**
 * One printable line from any text: control and format characters become spaces, runs of white
 * space one space, and a text longer than `max` graphemes is cut (at a word when one ends in
 * its last third) and ends with `…`. Lone surrogates are dropped. May return `''`.
 *
 * @example
 * ```ts
 * sanitizeTitle('fix\tthe\u001b[31m build\n', 60); // 'fix the [31m build'
 * ```
 */
export function sanitizeTitle(text: string, max: number): string {
  const line = text.replace(HIDDEN, ' ').replace(/\s+/g, ' ').trim();
  const parts = graphemes(line);
  if (parts.length <= max) return line;
  const head = parts.slice(0, Math.max(1, max - 1)).join('');
  const space = head.lastIndexOf(' ');
  const cut = space >= (head.length * 2) / 3 ? head.slice(0, space) : head;
  return `${cut.trimEnd()}…`;
}

/**
 * The title of a session from its first request: deterministic, one printable line of at most
 * {@link AUTO_TITLE_MAX} graphemes, never empty ({@link UNTITLED} when nothing is printable).
 *
 * @example
 * ```ts
 * deriveSessionTitle('  Fix the failing build\nin packages/a'); // 'Fix the failing build in packages/a'
 * ```
 */
export function deriveSessionTitle(request: string): string {
  return sanitizeTitle(request, AUTO_TITLE_MAX) || UNTITLED;
}

/** The title a person typed (`/title text`), sanitised; `undefined` when nothing is printable. */
export function personTitle(text: string): string | undefined {
  return sanitizeTitle(text, PERSON_TITLE_MAX) || undefined;
}

/**
 * Records `title` as the session's title: a `session/title` event in the log (never part of a
 * model request) and the title in the session's index entry, so `spine sessions` shows it
 * without reading the log. Returns the body written.
 */
export function recordSessionTitle(
  session: Session,
  sessionDir: string,
  title: string,
  source: SessionTitleBody['source'],
): SessionTitleBody {
  const body: SessionTitleBody = { title, source };
  session.append('session/title', body);
  const previous = readSessionIndex(sessionDir, session.id);
  writeSessionIndex(sessionDir, session.id, {
    ...(previous ?? { tokens: 0, turns: 0 }),
    updatedAt: new Date().toISOString(),
    title,
  });
  return body;
}

/** The title `spine sessions` shows: the latest recorded one (index entry), else the header's. */
export function currentSessionTitle(
  sessionDir: string,
  session: Pick<Session, 'id' | 'header'>,
): string | undefined {
  return readSessionIndex(sessionDir, session.id)?.title ?? session.header.title;
}
