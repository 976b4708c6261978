// ripgrep as a prefilter for the grep tool. The JS walk chooses the files (so ignore semantics stay
// the tool's own); rg only says which of them can contain a match, and RE2 then produces the output
// from those files alone. For that to leave results unchanged, rg must report every file in which
// RE2 finds a matching line. rg runs with `--no-unicode` on raw bytes, where `\w`, `\d`, `\s`, `\b`
// are ASCII as in RE2. An ASCII pattern built only from ASCII-matching parts finds the same lines
// byte by byte as RE2 does char by char; parts that can match a non-ASCII character (`.`, negated
// classes, `\W`, escapes by code, case folding to `K`/`ſ`…) could miss in bytes, so with those rg
// also reports every file holding a non-ASCII byte. Anything else (non-ASCII pattern, anchors of
// the whole text, a pattern matching an empty line, any rg error) means no prefilter.
import { execFile, spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** How rg is asked for one pattern. */
export interface RipgrepPlan {
  args: string[];
  /** rg stops a file after this many candidate lines (the caller matches the rest itself). */
  maxCount: number;
}

/** The lines rg found in one file, as 0-based indexes, ascending. */
export interface RipgrepLines {
  lines: number[];
  /**
   * False when lines after the last one are not known to be free: rg stopped at `maxCount`, or
   * could not search the file at all (no lines then).
   */
  complete: boolean;
}

/**
 * Finds ripgrep: the given path, or the first `rg` on `PATH`; `null` turns rg off. The candidate
 * must say it is ripgrep when asked for its version (a stand-in exiting 1 would read as "no file
 * matches" and hide results).
 */
export async function locateRipgrep(
  configured: string | null | undefined,
): Promise<string | undefined> {
  if (configured === null) return undefined;
  const candidates =
    configured !== undefined
      ? [configured]
      : (process.env.PATH ?? '')
          .split(delimiter)
          .filter((dir) => isAbsolute(dir))
          .map((dir) => join(dir, 'rg'));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      if (!statSync(candidate).isFile()) continue;
      const version = await new Promise<string | undefined>((resolve) => {
        execFile(candidate, ['--version'], { timeout: 5_000 }, (error, stdout) =>
          resolve(error ? undefined : stdout),
        );
      });
      if (version !== undefined && /^ripgrep \d/.test(version)) return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

// Parts of an ASCII pattern that can match a non-ASCII character in RE2 (conservatively: negated
// classes, upper-case class escapes, escapes by code, `\p`, `\C`, `\X`, inline flags), and a `.`
// other than in `.*` or `.+` (any run of characters is any run of bytes; one character is not).
const UNICODE_SENSITIVE = /\[\^|\[:\^|\\[WSDBpPxCX0-9]|\(\?/;
const SINGLE_DOT = /\.(?![*+])/;

function unicodeSensitive(pattern: string): boolean {
  if (UNICODE_SENSITIVE.test(pattern)) return true;
  // Escaped characters (`\.` is a literal dot) are dropped before looking for a lone `.`.
  return SINGLE_DOT.test(pattern.replace(/\\[\s\S]/g, ''));
}
// Under case folding, `k` and `s` also match U+212A and U+017F; classes and ranges may contain them.
const FOLD_SENSITIVE = /[ksKS\\[-]/;
// Parts whose meaning differs between a line (RE2 here) and rg's haystack, or that rg lacks.
const UNSUPPORTED = /\\[AzZQEC]|[\n\r]/;

/** The rg arguments for `pattern`, or `undefined` when rg cannot stand in for RE2 soundly. */
export function planRipgrep(
  pattern: string,
  options: { ignoreCase?: boolean; matchesEmptyLine: boolean; maxCount: number },
): RipgrepPlan | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII range check
  if (options.matchesEmptyLine || !/^[\x00-\x7f]*$/.test(pattern)) return undefined;
  if (UNSUPPORTED.test(pattern)) return undefined;
  const sensitive =
    unicodeSensitive(pattern) || (options.ignoreCase === true && FOLD_SENSITIVE.test(pattern));
  const args = [
    '--no-config',
    '--line-number',
    '--with-filename',
    '--no-heading',
    '--null',
    '--color=never',
    '--max-columns=1',
    `--max-count=${options.maxCount}`,
    '--text',
    '--encoding=none',
    '--no-unicode',
    '--no-ignore',
    '--hidden',
    options.ignoreCase ? '--ignore-case' : '--case-sensitive',
    '-e',
    pattern,
  ];
  if (sensitive) args.push('-e', '[\\x80-\\xFF]');
  return { args, maxCount: options.maxCount };
}

/** Paths per rg process, and at most this many bytes of them (well under the argument limit). */
const CHUNK_FILES = 4096;
const CHUNK_BYTES = 256 * 1024;
const PARALLEL = 2;

/**
 * The files of `files` that rg's error output names (`[rg: ]path: reason`), or `undefined` when a
 * line names none of them (then nothing rg said can be relied on).
 */
function filesInErrors(stderr: string, files: readonly string[]): Set<string> | undefined {
  const known = new Set(files);
  // Every known path that `text` starts with, followed by `: ` (all of them when a path holds
  // `: ` itself: each is then searched by RE2).
  const named = (text: string): string[] => {
    const found: string[] = [];
    for (let at = text.indexOf(': '); at >= 0; at = text.indexOf(': ', at + 1))
      if (known.has(text.slice(0, at))) found.push(text.slice(0, at));
    return found;
  };
  const failed = new Set<string>();
  for (const line of stderr.split('\n')) {
    if (line === '') continue;
    // rg 13 writes `path: reason`; later versions `rg: path: reason`.
    const files = [...named(line), ...(line.startsWith('rg: ') ? named(line.slice(4)) : [])];
    if (files.length === 0) return undefined;
    for (const file of files) failed.add(file);
  }
  return failed;
}

/** rg's output for one chunk, and the files it could not search (exit code 2). */
interface ChunkResult {
  output: Buffer;
  failed: Set<string>;
}

function runChunk(
  rg: string,
  args: string[],
  files: readonly string[],
  cwd: string,
  signal: AbortSignal,
): Promise<ChunkResult | undefined> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(undefined);
    const child = spawn(rg, [...args, '--', ...files], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, RIPGREP_CONFIG_PATH: '' },
    });
    const chunks: Buffer[] = [];
    const errors: Buffer[] = [];
    const onAbort = (): void => {
      child.kill('SIGKILL');
    };
    signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => errors.push(chunk));
    child.on('error', () => {
      signal.removeEventListener('abort', onAbort);
      resolve(undefined);
    });
    child.on('close', (code) => {
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted || (code !== 0 && code !== 1 && code !== 2)) return resolve(undefined);
      // Exit code 2: some files could not be searched (removed since the walk listed them, say);
      // each is named on stderr, and the rest were searched in full.
      const failed =
        code === 2
          ? filesInErrors(Buffer.concat(errors).toString('utf8'), files)
          : new Set<string>();
      if (!failed || (code === 2 && failed.size === 0)) return resolve(undefined);
      resolve({ output: Buffer.concat(chunks), failed });
    });
  });
}

/** Parses rg's `path NUL line:…` records (a line's text is at most one byte: `--max-columns=1`). */
function parseLines(output: Buffer, found: Map<string, RipgrepLines>, maxCount: number): boolean {
  let at = 0;
  while (at < output.length) {
    const nul = output.indexOf(0, at);
    const colon = nul < 0 ? -1 : output.indexOf(0x3a, nul);
    const end = colon < 0 ? -1 : output.indexOf(0x0a, colon);
    if (end < 0) return false;
    const path = output.toString('utf8', at, nul);
    const line = Number(output.toString('latin1', nul + 1, colon));
    if (!Number.isInteger(line) || line < 1) return false;
    let entry = found.get(path);
    if (!entry) {
      entry = { lines: [], complete: true };
      found.set(path, entry);
    }
    entry.lines.push(line - 1);
    if (entry.lines.length >= maxCount) entry.complete = false;
    at = end + 1;
  }
  return true;
}

/**
 * For each of `files` (absolute paths) in which rg finds the planned pattern, the candidate lines;
 * `undefined` when rg failed in any way (the caller then searches every file itself). An abort
 * kills rg.
 */
export async function ripgrepFilter(
  rg: string,
  plan: RipgrepPlan,
  files: AsyncIterable<string> | Iterable<string>,
  cwd: string,
  signal: AbortSignal,
): Promise<Map<string, RipgrepLines> | undefined> {
  const found = new Map<string, RipgrepLines>();
  const queue: string[][] = [];
  const running = new Set<Promise<void>>();
  let failed = false;
  const pump = (): void => {
    while (!failed && running.size < PARALLEL && queue.length > 0) {
      const chunk = queue.shift()!;
      const job = runChunk(rg, plan.args, chunk, cwd, signal).then((result) => {
        if (!result || !parseLines(result.output, found, plan.maxCount)) failed = true;
        // A file rg could not search is a candidate whose lines are all unknown.
        else for (const file of result.failed) found.set(file, { lines: [], complete: false });
        running.delete(job);
        pump();
      });
      running.add(job);
    }
  };
  // Chunks start while the walk is still listing, so rg's work overlaps it.
  let chunk: string[] = [];
  let size = 0;
  for await (const file of files) {
    // A path with a line break would make rg's output ambiguous.
    if (file.includes('\n')) failed = true;
    if (failed) continue;
    chunk.push(file);
    size += file.length + 1;
    if (chunk.length >= CHUNK_FILES || size >= CHUNK_BYTES) {
      queue.push(chunk);
      chunk = [];
      size = 0;
      pump();
    }
  }
  if (chunk.length > 0) queue.push(chunk);
  pump();
  while (running.size > 0) await Promise.all(running);
  return failed ? undefined : found;
}
