import { readFileSync } from 'node:fs';
import type { LspDiagnostic, LspLocation, LspSeverity } from '../types.js';
import { displayPath, isInside } from './paths.js';

const EXCERPT_MAX = 120;

/** Reads lines of workspace files for excerpts, each file once per render. */
export class LineReader {
  private readonly files = new Map<string, string[] | undefined>();

  /** The trimmed text of a 1-based line, or '' when unreadable. */
  line(path: string, line: number): string {
    if (!this.files.has(path)) {
      try {
        this.files.set(path, readFileSync(path, 'utf8').split(/\r?\n/));
      } catch {
        this.files.set(path, undefined);
      }
    }
    const text = this.files.get(path)?.[line - 1] ?? '';
    const trimmed = text.trim();
    return trimmed.length > EXCERPT_MAX ? `${trimmed.slice(0, EXCERPT_MAX - 1)}…` : trimmed;
  }

  /** The raw text of a 1-based line, or undefined. */
  raw(path: string, line: number): string | undefined {
    this.line(path, line);
    return this.files.get(path)?.[line - 1];
  }
}

/** `path:line:col` relative to the workspace. */
export function where(root: string, location: LspLocation): string {
  return `${displayPath(root, location.path)}:${location.line}:${location.column}`;
}

/** Orders locations by path, line, column. */
export function compareLocations(a: LspLocation, b: LspLocation): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line || a.column - b.column;
}

/** Result of {@link selectLocations}. */
export interface SelectedLocations<T> {
  shown: T[];
  /** Items beyond the cap. */
  hidden: number;
  /** Items outside the workspace, dropped. */
  outside: number;
}

/**
 * Keeps the items whose location is inside the workspace, removes duplicates, sorts them and
 * caps them at `max`.
 */
export function selectLocations<T>(
  root: string,
  items: readonly T[],
  locationOf: (item: T) => LspLocation,
  max: number,
): SelectedLocations<T> {
  const seen = new Set<string>();
  const inside: T[] = [];
  let outside = 0;
  for (const item of items) {
    const location = locationOf(item);
    if (!isInside(root, location.path)) {
      outside += 1;
      continue;
    }
    const key = `${location.path}:${location.line}:${location.column}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inside.push(item);
  }
  inside.sort((a, b) => compareLocations(locationOf(a), locationOf(b)));
  return { shown: inside.slice(0, max), hidden: Math.max(0, inside.length - max), outside };
}

/** Lines noting what was left out, if anything. */
export function omissionNotes(
  selection: { hidden: number; outside: number },
  noun: string,
): string[] {
  const notes: string[] = [];
  const word = (count: number): string => (count === 1 ? noun.replace(/s$/, '') : noun);
  const { hidden, outside } = selection;
  if (hidden > 0) notes.push(`(${hidden} more ${word(hidden)} not shown; narrow the query)`);
  if (outside > 0) notes.push(`(${outside} ${word(outside)} outside the workspace omitted)`);
  return notes;
}

/** One line per location: `path:line:col  excerpt`. */
export function renderLocations(
  root: string,
  locations: readonly LspLocation[],
  reader: LineReader,
): string[] {
  return locations.map(
    (location) => `${where(root, location)}  ${reader.line(location.path, location.line)}`,
  );
}

/** The identifier under a 1-based position, for headings; '' when there is none. */
export function wordAt(reader: LineReader, path: string, line: number, column: number): string {
  const text = reader.raw(path, line) ?? '';
  const isWord = (character: string | undefined): boolean =>
    character !== undefined && /[\w$]/.test(character);
  let start = column - 1;
  let end = column - 1;
  while (isWord(text[start - 1])) start -= 1;
  while (isWord(text[end])) end += 1;
  return text.slice(start, end);
}

const SEVERITY_ORDER: Record<LspSeverity, number> = {
  error: 0,
  warning: 1,
  information: 2,
  hint: 3,
};

/** `path:line:col severity CODE: message` plus the offending line, sorted and capped. */
export function renderDiagnostics(
  root: string,
  diagnostics: readonly LspDiagnostic[],
  reader: LineReader,
  max: number,
): { lines: string[]; hidden: number } {
  const sorted = [...diagnostics].sort(
    (a, b) =>
      compareLocations(a.location, b.location) ||
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity],
  );
  const lines: string[] = [];
  for (const diagnostic of sorted.slice(0, max)) {
    const code =
      diagnostic.code === undefined
        ? ''
        : diagnostic.source === 'typescript' && typeof diagnostic.code === 'number'
          ? ` TS${diagnostic.code}`
          : ` ${diagnostic.code}`;
    const message = diagnostic.message.split('\n').join('\n    ');
    lines.push(`${where(root, diagnostic.location)} ${diagnostic.severity}${code}: ${message}`);
    const excerpt = reader.line(diagnostic.location.path, diagnostic.location.line);
    if (excerpt) lines.push(`    > ${excerpt}`);
  }
  return { lines, hidden: Math.max(0, sorted.length - max) };
}

/** "2 errors, 1 warning" style counts. */
export function countSeverities(diagnostics: readonly LspDiagnostic[]): string {
  const counts = new Map<LspSeverity, number>();
  for (const diagnostic of diagnostics)
    counts.set(diagnostic.severity, (counts.get(diagnostic.severity) ?? 0) + 1);
  return (['error', 'warning', 'information', 'hint'] as const)
    .filter((severity) => counts.has(severity))
    .map((severity) => {
      const count = counts.get(severity)!;
      return `${count} ${severity === 'information' ? 'info' : severity}${count === 1 || severity === 'information' ? '' : 's'}`;
    })
    .join(', ');
}
