import type { LspLocation, LspManager, LspPosition, LspSymbol } from '../types.js';
import {
  classifyLocation,
  compareLocations,
  type LineReader,
  type LocationKind,
  where,
} from './format.js';
import { isInside } from './paths.js';
import { sourceRank } from './source-rank.js';

/** How a tool call names its target: a position, a name on a line, a name in a file, or a name. */
export interface TargetArgs {
  path?: string;
  line?: number;
  column?: number;
  symbol?: string;
}

/** A resolved target position, with a note when the choice was ambiguous. */
export interface Target {
  path: string;
  position: LspPosition;
  note?: string;
  /**
   * Declarations of the same name in the workspace's build output that were passed over for
   * the source one. Code compiled against the build output refers to them (when no declaration
   * map links them to source), so references are also collected from there.
   */
  buildTwins?: { path: string; position: LspPosition }[];
}

/** A problem with the tool's arguments that the model can fix; rendered as an error result. */
export class ToolInputProblem extends Error {}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The 1-based column of `name` as a whole word in `text`, searching from `fromColumn`. */
export function findWord(text: string, name: string, fromColumn = 1): number | undefined {
  const pattern = new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`, 'g');
  pattern.lastIndex = Math.max(0, fromColumn - 1);
  const match = pattern.exec(text);
  return match ? match.index + 1 : undefined;
}

/** Moves a symbol's location onto its name (workspace symbols often span the declaration). */
export function nameLocation(symbol: LspSymbol, reader: LineReader): LspLocation {
  const { location } = symbol;
  for (
    let line = location.line;
    line <= Math.min(location.endLine, location.line + 20);
    line += 1
  ) {
    const text = reader.raw(location.path, line);
    if (text === undefined) break;
    const column = findWord(text, symbol.name, line === location.line ? location.column : 1);
    if (column !== undefined) {
      return {
        path: location.path,
        line,
        column,
        endLine: line,
        endColumn: column + symbol.name.length,
      };
    }
  }
  return location;
}

/** True when `symbol` is called `query`, or `Container.name` matches its container and name. */
export function symbolMatches(symbol: LspSymbol, query: string): boolean {
  if (symbol.name === query) return true;
  const dot = query.lastIndexOf('.');
  return (
    dot > 0 && symbol.name === query.slice(dot + 1) && symbol.containerName === query.slice(0, dot)
  );
}

function bareName(query: string): string {
  return query.slice(query.lastIndexOf('.') + 1);
}

/** The position of the first whole-word mention of `name` in a file. */
function firstMention(reader: LineReader, path: string, name: string): LspPosition | undefined {
  for (let line = 1; ; line += 1) {
    const text = reader.raw(path, line);
    if (text === undefined) return undefined;
    const column = findWord(text, name);
    if (column !== undefined) return { line, column };
  }
}

const ALIAS_CHECK_LIMIT = 8;

/**
 * Drops re-exports and imports that workspace symbol search reports under the same name
 * (`export { x } from './x.js'`): a candidate whose definition lies elsewhere is an alias, and
 * what it points to takes its place.
 */
async function withoutAliases(
  manager: LspManager,
  candidates: LspSymbol[],
  signal: AbortSignal | undefined,
): Promise<LspSymbol[]> {
  if (candidates.length < 2 || candidates.length > ALIAS_CHECK_LIMIT) return candidates;
  const kept = new Map<string, LspSymbol>();
  const key = (location: LspLocation): string =>
    `${location.path}:${location.line}:${location.column}`;
  for (const candidate of candidates) {
    const { path, line, column } = candidate.location;
    const targets = await manager
      .definition(path, { line, column }, { signal })
      .catch(() => [] as LspLocation[]);
    const elsewhere = targets.filter(
      (target) =>
        isInside(manager.cwd, target.path) && (target.path !== path || target.line !== line),
    );
    if (elsewhere.length === 0) kept.set(key(candidate.location), candidate);
    for (const target of elsewhere) {
      if (candidates.some((each) => key(each.location) === key(target))) continue;
      kept.set(key(target), { ...candidate, location: target });
    }
  }
  return [...kept.values()];
}

/** Resolves the arguments of a position-based tool to one file position. */
export async function locateTarget(
  manager: LspManager,
  args: TargetArgs,
  reader: LineReader,
  signal: AbortSignal | undefined,
): Promise<Target> {
  const { path, line, column, symbol } = args;
  if (path !== undefined && line !== undefined) {
    const file = manager.resolvePath(path);
    if (column !== undefined) return { path: file, position: { line, column } };
    if (symbol === undefined) {
      throw new ToolInputProblem(
        'Give `column` or `symbol` together with `line`, so the position is exact.',
      );
    }
    const text = reader.raw(file, line);
    if (text === undefined) throw new ToolInputProblem(`${path} has no line ${line}.`);
    const found = findWord(text, bareName(symbol));
    if (found === undefined) {
      throw new ToolInputProblem(
        `\`${bareName(symbol)}\` does not occur on line ${line} of ${path}; the line reads: ${text.trim()}`,
      );
    }
    return { path: file, position: { line, column: found } };
  }
  if (symbol === undefined || symbol.trim() === '') {
    throw new ToolInputProblem(
      'Give `path` with `line` and `column` (1-based), or a `symbol` name (optionally with `path`).',
    );
  }
  let candidates: LspSymbol[];
  if (path !== undefined) {
    const file = manager.resolvePath(path);
    candidates = (await manager.documentSymbols(file, { signal })).filter((each) =>
      symbolMatches(each, symbol),
    );
    if (candidates.length === 0) {
      // Not declared here: use its first mention in the file (an import or a call); the
      // server resolves it from there.
      const used = firstMention(reader, file, bareName(symbol));
      if (used) return { path: file, position: used };
      throw new ToolInputProblem(
        `\`${symbol}\` is neither declared nor used in ${path}; try lsp_symbols to find where it is declared.`,
      );
    }
  } else {
    const found = await manager.workspaceSymbols(bareName(symbol), { signal });
    const named = found.filter(
      (each) => each.name === bareName(symbol) && isInside(manager.cwd, each.location.path),
    );
    if (bareName(symbol) === symbol) {
      candidates = await withoutAliases(
        manager,
        named.map((each) => ({ ...each, location: nameLocation(each, reader) })),
        signal,
      );
    } else {
      // `Class.method`: workspace symbols often lack container names, so the declaring files'
      // document symbols (which have them) decide.
      const files = [...new Set(named.map((each) => each.location.path))];
      const declared = await Promise.all(
        files.map((file) => manager.documentSymbols(file, { signal })),
      );
      candidates = declared.flat().filter((each) => symbolMatches(each, symbol));
    }
    if (candidates.length === 0) {
      throw new ToolInputProblem(
        `No symbol named \`${symbol}\` was found in the workspace; check the spelling or use grep.`,
      );
    }
  }
  // Where a developer works comes first: source, then the workspace's build output; library
  // declarations are never the target when the workspace declares the name itself.
  const order: Record<LocationKind, number> = { source: 0, build: 1, dependency: 2, outside: 3 };
  const rankOf = (symbol: LspSymbol): number =>
    order[classifyLocation(manager.cwd, symbol.location.path)];
  // Within source, exported definitions outside tests before test helpers of the same name.
  const inSource = (symbol: LspSymbol): number =>
    rankOf(symbol) === 0 ? sourceRank(manager.cwd, symbol, reader) : 0;
  candidates.sort(
    (a, b) =>
      rankOf(a) - rankOf(b) ||
      inSource(a) - inSource(b) ||
      compareLocations(a.location, b.location),
  );
  const best = rankOf(candidates[0]!);
  const dropped = candidates.filter((each) => rankOf(each) !== best).length;
  const twins = candidates
    .filter((each) => best === 0 && rankOf(each) === 1)
    .map((each) => ({
      path: each.location.path,
      position: { line: each.location.line, column: each.location.column },
    }));
  candidates = candidates.filter((each) => rankOf(each) === best);
  const chosen = candidates[0]!;
  const target: Target = {
    path: chosen.location.path,
    position: { line: chosen.location.line, column: chosen.location.column },
  };
  if (twins.length > 0) target.buildTwins = twins;
  if (candidates.length > 1) {
    const others = candidates.slice(1, 6).map((each) => where(manager.cwd, each.location));
    target.note = `${candidates.length} symbols are named \`${symbol}\`; using ${where(manager.cwd, chosen.location)} (others: ${others.join(', ')}). Pass path and line to pick another.`;
  }
  if (dropped > 0 && best === 0) {
    const also = `(${dropped} more in build output or dependencies not considered)`;
    target.note = target.note ? `${target.note} ${also}` : also;
  }
  return target;
}
