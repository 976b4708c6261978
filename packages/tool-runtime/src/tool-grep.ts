import { readFileSync, statSync } from 'node:fs';
import type { ToolDefinition } from '@spine/protocol';
import picomatch from 'picomatch';
import { type ZodType, z } from 'zod';
import { defineTool } from './define-tool.js';
import { compileLineMatcher, RE2_SYNTAX_NOTE } from './internal/grep-matcher.js';
import {
  locateRipgrep,
  planRipgrep,
  type RipgrepLines,
  ripgrepFilter,
} from './internal/grep-ripgrep.js';
import { readAhead } from './internal/read-ahead.js';
import { failureOutput, looksBinary, toolSupport } from './internal/tool-support.js';
import { type WalkEntry, walkWorkspaceBatches } from './internal/walk.js';
import type { WorkspaceToolOptions } from './types.js';
import { nodeWorkspaceFs } from './workspace-fs.js';

const GrepArguments = z.object({
  pattern: z
    .string()
    .min(1)
    .max(4096)
    .describe(
      'Regular expression (RE2 syntax: no backreferences or lookaround) searched line by line.',
    ),
  path: z
    .string()
    .optional()
    .describe('File or directory to search, relative to the workspace root. Default: the root.'),
  glob: z
    .string()
    .optional()
    .describe(
      'Only files matching this glob: "*.ts" matches file names in any directory, "src/**/*.ts" paths from the workspace root or from `path`.',
    ),
  ignoreCase: z.boolean().optional(),
  context: z
    .number()
    .int()
    .min(0)
    .max(10)
    .optional()
    .describe('Lines of context before and after each match.'),
  before: z
    .number()
    .int()
    .min(0)
    .max(10)
    .optional()
    .describe('Lines of context before each match (overrides context on that side).'),
  after: z
    .number()
    .int()
    .min(0)
    .max(10)
    .optional()
    .describe('Lines of context after each match (overrides context on that side).'),
  maxMatches: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe('Stop after this many matches (files with output "files"). Default 100.'),
  output: z
    .enum(['content', 'files'])
    .optional()
    .describe('"content" (default): matching lines; "files": only the paths of matching files.'),
});
/** Arguments of the `grep` tool. */
export interface GrepToolArguments {
  /** Regular expression in RE2 syntax (no backreferences or lookaround), matched line by line. */
  pattern: string;
  /** File or directory to search (default: the workspace root). */
  path?: string;
  /** Only files matching this glob (without a `/`: the file name, in any directory). */
  glob?: string;
  /** Match case-insensitively. */
  ignoreCase?: boolean;
  /** Lines of context around each match (0–10). */
  context?: number;
  /** Lines of context before each match (0–10); overrides `context` on that side. */
  before?: number;
  /** Lines of context after each match (0–10); overrides `context` on that side. */
  after?: number;
  /** Stop after this many matches, or files with `output: 'files'` (default 100). */
  maxMatches?: number;
  /** `content` (default): the matching lines; `files`: one path per matching file, in walk order. */
  output?: 'content' | 'files';
}

const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** Files stat'ed and read ahead of the one being matched. */
const READ_AHEAD = 24;
/** The search yields to the event loop at least this often. */
const YIELD_EVERY_MS = 15;

/** Options of {@link createGrepTool}. */
export interface GrepToolOptions extends WorkspaceToolOptions {
  /** Time limit of one search; the runtime aborts it and reports a timeout. Default 30,000 ms. */
  timeoutMs?: number;
  /**
   * ripgrep executable used to skip files that cannot match (results are identical with or
   * without it). Default: `rg` on `PATH` if there is one; `null` never uses ripgrep. Only used
   * with the node file system (not with a custom `fs`).
   */
  ripgrepPath?: string | null;
}

interface Candidate {
  absolute: string;
  relative: string;
}

/** Default time limit of one search. */
const GREP_TIMEOUT_MS = 30_000;

/**
 * Creates the `grep` tool: regex search over workspace files (respecting `.gitignore` and excludes,
 * skipping binary and very large files), with context lines and a result cap. Patterns run on RE2,
 * whose matching time is linear in the input, so no pattern can freeze the process; the search
 * yields to other work as it goes and stops at its timeout (30 s) or when aborted.
 */
export function createGrepTool(options: GrepToolOptions): ToolDefinition<GrepToolArguments> {
  const support = toolSupport(options);
  let ripgrep: Promise<string | undefined> | undefined;
  const findRipgrep = (): Promise<string | undefined> => {
    if (support.fs !== nodeWorkspaceFs) return Promise.resolve(undefined);
    ripgrep ??= locateRipgrep(options.ripgrepPath);
    return ripgrep;
  };
  // On the node file system a file is stat'ed and read synchronously: from the page cache that is
  // several times cheaper than the thread-pool round trips of fs/promises, and the search loop
  // yields to the event loop every few milliseconds anyway.
  const direct = support.fs === nodeWorkspaceFs;
  const load = async (entry: Candidate): Promise<{ entry: Candidate; buffer?: Buffer }> => {
    try {
      const stats = direct ? statSync(entry.absolute) : await support.fs.stat(entry.absolute);
      if (stats.size > MAX_FILE_BYTES) return { entry };
      const buffer = direct
        ? readFileSync(entry.absolute)
        : await support.fs.readFile(entry.absolute);
      return looksBinary(buffer) ? { entry } : { entry, buffer };
    } catch (error) {
      // A file removed since the walk listed it (a build's temporary file) is simply not searched.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entry };
      throw error;
    }
  };
  return defineTool({
    name: 'grep',
    description: `Search file contents with a regular expression. Returns path:line:text for matches (path-line-text for context lines), or only the paths of matching files with output "files". Respects .gitignore. ${RE2_SYNTAX_NOTE}`,
    parameters: GrepArguments as ZodType<GrepToolArguments>,
    isConcurrencySafe: true,
    timeoutMs: options.timeoutMs ?? GREP_TIMEOUT_MS,
    execute: async (args, context) => {
      const matcher = compileLineMatcher(args.pattern, { ignoreCase: args.ignoreCase });
      if ('error' in matcher) return { content: matcher.error, isError: true };
      const stopped = (): boolean => context.signal.aborted;
      try {
        const target = await support.resolve(args.path ?? '.');
        if (!target.exists) return { content: `Path not found: ${args.path}.`, isError: true };
        const root = await support.fs.realpath(support.cwd);
        const matchGlob = args.glob ? globMatcher(args.glob, target.relative) : undefined;
        const limit = args.maxMatches ?? 100;
        const filesOnly = args.output === 'files';
        const before = args.before ?? args.context ?? 0;
        const after = args.after ?? args.context ?? 0;
        const out: string[] = [];
        let matches = 0;
        let files = 0;
        const single = target.stats?.isFile() === true;
        const walk = (): AsyncGenerator<WalkEntry[]> =>
          walkWorkspaceBatches({
            fs: support.fs,
            root,
            start: target.absolute,
            exclude: support.exclude,
            signal: context.signal,
          });
        const rg = single ? undefined : await findRipgrep();
        const plan = rg
          ? planRipgrep(args.pattern, {
              ignoreCase: args.ignoreCase,
              matchesEmptyLine: matcher.matchesEmptyLine,
              maxCount: limit,
            })
          : undefined;
        let candidates: AsyncIterable<Candidate> | Candidate[];
        let candidateLines: Map<string, RipgrepLines> | undefined;
        if (single) candidates = [{ absolute: target.absolute, relative: target.relative }];
        else if (!rg || !plan) candidates = filesOf(walk(), matchGlob);
        else {
          // The walk (its listings cached between calls) is listed whole, then rg runs once over it.
          const all: Candidate[] = [];
          for await (const entry of filesOf(walk(), matchGlob)) all.push(entry);
          if (stopped()) return { content: 'Search aborted.', isError: true };
          const hits = await ripgrepFilter(
            rg,
            plan,
            all.map((entry) => entry.absolute),
            root,
            context.signal,
          );
          if (stopped()) return { content: 'Search aborted.', isError: true };
          candidates = hits ? all.filter((entry) => hits.has(entry.absolute)) : all;
          candidateLines = hits;
        }
        let slice = Date.now();
        for await (const { entry, buffer } of readAhead(candidates, load, READ_AHEAD)) {
          if (Date.now() - slice >= YIELD_EVERY_MS) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            slice = Date.now();
          }
          if (context.signal.aborted) break;
          if (!buffer) continue;
          const known = candidateLines?.get(entry.absolute);
          // With every matching line known, lines after the last one (and its context) are not needed.
          const { lines, whole } = splitLines(
            buffer,
            known?.complete && known.lines.length > 0 ? known.lines.at(-1)! + after + 1 : undefined,
          );
          // The empty string after a final line break is searched (`^$` matches it) but is no
          // line to show as context.
          const lastLine = lines.length - (whole && buffer.at(-1) === 0x0a ? 2 : 1);
          let lastShown = -1;
          let fileHadMatch = false;
          // Listing files, one matching line settles a file.
          const wanted = filesOnly ? 1 : limit - matches;
          let hits = known ? matcher.matchCandidates(lines, known.lines, wanted) : [];
          if (!known) hits = await matcher.matchLines(lines, wanted, stopped);
          else if (!known.complete && hits.length < wanted)
            hits.push(
              ...(await matcher.matchLines(
                lines,
                wanted - hits.length,
                stopped,
                (known.lines.at(-1) ?? -1) + 1,
              )),
            );
          if (stopped()) break;
          if (filesOnly) {
            if (hits.length > 0) {
              out.push(entry.relative);
              matches++;
              files++;
            }
            if (matches >= limit) break;
            continue;
          }
          for (const i of hits) {
            matches++;
            fileHadMatch = true;
            const from = Math.max(0, i - before, lastShown + 1);
            if (before + after > 0 && lastShown >= 0 && from > lastShown + 1) out.push('--');
            for (let j = from; j <= Math.max(i, Math.min(lastLine, i + after)); j++) {
              const separator = j === i ? ':' : '-';
              out.push(
                `${entry.relative}${separator}${j + 1}${separator}${lines[j]!.slice(0, 500)}`,
              );
              lastShown = j;
            }
          }
          if (fileHadMatch) files++;
          // Stop before the next file is taken (its read may have failed, which must not matter now).
          if (matches >= limit) break;
        }
        if (matches === 0)
          return {
            content: `No matches for /${args.pattern}/.`,
            meta: { matches: 0, contentType: 'text/plain', sourcePath: target.relative },
          };
        if (matches >= limit)
          out.push(
            `[Stopped at ${limit} ${filesOnly ? 'files' : 'matches'}; narrow the pattern, path or glob, or raise maxMatches.]`,
          );
        return {
          content: out.join('\n'),
          meta: {
            matches,
            files,
            capped: matches >= limit,
            contentType: 'text/plain',
            sourcePath: target.relative,
          },
        };
      } catch (error) {
        return failureOutput(error);
      }
    },
  });
}

/**
 * The lines of a UTF-8 file, or only its first `count` lines (all of them if it has fewer; `whole`
 * says which). A line break is one byte never inside a multi-byte sequence, so decoding up to it
 * gives exactly the start of the whole file's decoding.
 */
function splitLines(
  buffer: Buffer,
  count: number | undefined,
): { lines: string[]; whole: boolean } {
  if (count !== undefined) {
    let at = -1;
    for (let line = 0; line < count; line++) {
      at = buffer.indexOf(0x0a, at + 1);
      if (at < 0) break;
    }
    if (at >= 0) return { lines: buffer.toString('utf8', 0, at).split('\n'), whole: false };
  }
  return { lines: buffer.toString('utf8').split('\n'), whole: true };
}

/**
 * As ripgrep's `-g`: a glob without a `/` ("*.ts") is matched against the file name in any
 * directory; one with a `/` against the path from the workspace root or from the directory
 * searched (`searched`, workspace-relative).
 */
function globMatcher(glob: string, searched: string): (path: string) => boolean {
  const isMatch = picomatch(glob, { dot: true });
  if (!glob.includes('/')) return (path) => isMatch(path.slice(path.lastIndexOf('/') + 1));
  const below = searched === '.' ? 0 : searched.length + 1;
  return (path) => isMatch(path) || (below > 0 && isMatch(path.slice(below)));
}

/** The files of a walk that the glob admits, in walk order. */
async function* filesOf(
  walk: AsyncIterable<readonly WalkEntry[]>,
  matchGlob: ((path: string) => boolean) | undefined,
): AsyncGenerator<Candidate> {
  for await (const batch of walk)
    for (const entry of batch)
      if (!entry.isDirectory && (!matchGlob || matchGlob(entry.relative))) yield entry;
}
