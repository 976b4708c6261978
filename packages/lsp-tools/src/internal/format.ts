import { existsSync, readFileSync } from 'node:fs';
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

/** Where a location lies, from where a developer works to where nobody edits. */
export type LocationKind = 'source' | 'build' | 'dependency' | 'outside';

const BUILD_DIRECTORIES = new Set(['dist', 'build', 'out']);

/**
 * Classifies a location: workspace source, the workspace's own build output (`dist`, `build`,
 * `out`, or a `.d.ts` generated next to a source map), dependencies (`node_modules`), or outside
 * the workspace (standard library declarations and other files).
 */
export function classifyLocation(root: string, path: string): LocationKind {
  if (!isInside(root, path)) return 'outside';
  const segments = displayPath(root, path).split('/').slice(0, -1);
  if (segments.includes('node_modules')) return 'dependency';
  if (segments.some((segment) => BUILD_DIRECTORIES.has(segment))) return 'build';
  if (/\.d\.[cm]?ts$/.test(path) && existsSync(`${path}.map`)) return 'build';
  return 'source';
}

/** Result of {@link selectLocations}. */
export interface SelectedLocations<T> {
  shown: T[];
  /** Items beyond the cap. */
  hidden: number;
  /** Items outside the workspace (standard library, other folders), dropped. */
  outside: number;
  /** Items in the workspace's build output, dropped because source items exist. */
  build: number;
  /** Items under `node_modules`, dropped. */
  dependency: number;
  /** True when only build output was found and it is shown instead of source. */
  buildShown: boolean;
}

/**
 * Keeps the items in workspace source, removes duplicates, sorts them and caps them at `max`.
 * Build output is counted, or shown when nothing in source was found; dependencies and files
 * outside the workspace are counted, never listed.
 */
export function selectLocations<T>(
  root: string,
  items: readonly T[],
  locationOf: (item: T) => LspLocation,
  max: number,
): SelectedLocations<T> {
  const seen = new Set<string>();
  const groups: Record<LocationKind, T[]> = { source: [], build: [], dependency: [], outside: [] };
  for (const item of items) {
    const location = locationOf(item);
    const key = `${location.path}:${location.line}:${location.column}`;
    if (seen.has(key)) continue;
    seen.add(key);
    groups[classifyLocation(root, location.path)].push(item);
  }
  const buildShown = groups.source.length === 0 && groups.build.length > 0;
  const listed = buildShown ? groups.build : groups.source;
  listed.sort((a, b) => compareLocations(locationOf(a), locationOf(b)));
  return {
    shown: listed.slice(0, max),
    hidden: Math.max(0, listed.length - max),
    outside: groups.outside.length,
    build: buildShown ? 0 : groups.build.length,
    dependency: groups.dependency.length,
    buildShown,
  };
}

/** Lines noting what was left out, if anything. */
export function omissionNotes(
  selection: {
    hidden: number;
    outside: number;
    build?: number;
    dependency?: number;
    buildShown?: boolean;
  },
  noun: string,
): string[] {
  const notes: string[] = [];
  const word = (count: number): string => (count === 1 ? noun.replace(/s$/, '') : noun);
  const { hidden, outside, build = 0, dependency = 0 } = selection;
  if (selection.buildShown)
    notes.push(`(only build output was found: no ${noun} in workspace source)`);
  if (hidden > 0) notes.push(`(${hidden} more ${word(hidden)} not shown; narrow the query)`);
  if (build > 0)
    notes.push(
      `(${build} ${word(build)} in build output (dist/build/out, generated .d.ts) omitted; source is listed)`,
    );
  if (dependency > 0) notes.push(`(${dependency} ${word(dependency)} in node_modules omitted)`);
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
