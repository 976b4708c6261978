import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SandboxMode } from '@spine/protocol';
import { parse as parseYaml } from 'yaml';
import { InvalidProfileError } from './errors.js';
import type { AgentProfile } from './profile.js';
import { type ProfileSymlinks, readProfileText } from './profile-dir.js';

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MODES: readonly SandboxMode[] = ['read-only', 'workspace-write', 'danger-full-access'];
const MAX_STEPS_LIMIT = 10_000;

/**
 * Claude Code's tool names and the Spine tool each maps to, so a custom agent file written for
 * Claude Code works unchanged. Other names are lower-cased; names Spine has no tool for are kept
 * and simply match nothing.
 */
const TOOL_ALIASES: Readonly<Record<string, string>> = {
  read: 'read',
  write: 'write',
  edit: 'edit',
  multiedit: 'edit',
  bash: 'bash',
  grep: 'grep',
  glob: 'glob',
  ls: 'list',
  webfetch: 'web_fetch',
  websearch: 'web_search',
};

function toolName(raw: string): string {
  const lower = raw.trim().toLowerCase();
  return TOOL_ALIASES[lower] ?? lower;
}

/** Splits `---\n<yaml>\n---\n<body>`; undefined when the text has no frontmatter block. */
function splitFrontmatter(text: string): { yaml: string; body: string } | undefined {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const open = /^---[ \t]*\r?\n/.exec(source);
  if (!open) return undefined;
  const rest = source.slice(open[0].length);
  const close = /^---[ \t]*(\r?\n|$)/m.exec(rest);
  if (!close) return undefined;
  return { yaml: rest.slice(0, close.index), body: rest.slice(close.index + close[0].length) };
}

function fail(path: string, key: string, reason: string, cause?: unknown): never {
  throw new InvalidProfileError({ path, key, reason, ...(cause === undefined ? {} : { cause }) });
}

function optionalString(path: string, key: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '')
    fail(path, key, `expected a non-empty string, got ${describe(value)}`);
  return value.trim();
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  const text = JSON.stringify(value) ?? String(value);
  return `${typeof value} ${text.length > 40 ? `${text.slice(0, 40)}…` : text}`;
}

function toolsOf(path: string, value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const items =
    typeof value === 'string'
      ? value.split(',')
      : Array.isArray(value) && value.every((item) => typeof item === 'string')
        ? (value as string[])
        : fail(
            path,
            'tools',
            `expected a comma-separated string or a list of names, got ${describe(value)}`,
          );
  const names = items.map(toolName).filter((name) => name !== '');
  for (const name of names)
    if (name !== '*' && !NAME.test(name))
      fail(path, 'tools', `${JSON.stringify(name)} is not a tool name`);
  return names.includes('*') ? undefined : [...new Set(names)];
}

/**
 * Parses an agent profile file: YAML frontmatter (`name`, `description`, `tools`, `model`,
 * `sandbox`, `maxSteps`; other keys, such as Claude Code's `color`, are ignored) and the
 * Markdown body as the system prompt. `tools` is a comma-separated string or a list; Claude
 * Code's names (`Read`, `Grep`, `LS` …) map to Spine's; `*` or no `tools` means all of the
 * parent's. Never throws anything but {@link InvalidProfileError}.
 *
 * @param path - The file name used in error messages and as the profile's `source`.
 * @throws an {@link InvalidProfileError} naming the file and the key at fault.
 * @example
 * ```ts
 * const profile = parseProfileFile(
 *   '---\nname: reviewer\ndescription: Reviews a diff\ntools: Read, Grep\n---\nYou review diffs.',
 *   '.spine/agents/reviewer.md',
 * );
 * ```
 */
export function parseProfileFile(text: string, path: string): AgentProfile {
  const parts = splitFrontmatter(text);
  if (!parts)
    fail(
      path,
      'frontmatter',
      'the file must start with a `---` line, YAML keys, and a closing `---` line',
    );
  let data: unknown;
  try {
    data = parseYaml(parts.yaml, { maxAliasCount: 50, uniqueKeys: true, logLevel: 'error' });
  } catch (error) {
    // The parser's first line ends with a colon before its code frame; the frame is left out.
    const first = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
    const reason = `${first.replace(/:\s*$/, '')} (counting from the line after the opening ---)`;
    fail(path, 'frontmatter', `invalid YAML: ${reason}`, error);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    fail(path, 'frontmatter', `expected a mapping of keys, got ${describe(data)}`);
  const fields = data as Record<string, unknown>;
  const name = optionalString(path, 'name', fields.name);
  if (name === undefined) fail(path, 'name', 'missing (the name the model passes as profile)');
  if (!NAME.test(name))
    fail(path, 'name', `${JSON.stringify(name)} must be 1–64 of A-Z a-z 0-9 _ -`);
  const description = optionalString(path, 'description', fields.description);
  if (description === undefined)
    fail(path, 'description', 'missing (tells the model when to use the profile)');
  const tools = toolsOf(path, fields.tools);
  const model = optionalString(path, 'model', fields.model);
  const sandbox = optionalString(path, 'sandbox', fields.sandbox);
  if (sandbox !== undefined && !MODES.includes(sandbox as SandboxMode))
    fail(path, 'sandbox', `${JSON.stringify(sandbox)} is not one of ${MODES.join(', ')}`);
  const maxSteps = fields.maxSteps;
  if (
    maxSteps !== undefined &&
    maxSteps !== null &&
    (typeof maxSteps !== 'number' ||
      !Number.isInteger(maxSteps) ||
      maxSteps < 1 ||
      maxSteps > MAX_STEPS_LIMIT)
  )
    fail(
      path,
      'maxSteps',
      `expected an integer from 1 to ${MAX_STEPS_LIMIT}, got ${describe(maxSteps)}`,
    );
  const prompt = parts.body.trim();
  if (prompt === '')
    fail(path, 'body', 'the system prompt (the text after the frontmatter) is empty');
  const profile: AgentProfile = { name, description, prompt, source: path };
  if (tools !== undefined) profile.tools = tools;
  if (model !== undefined && model !== 'inherit') profile.model = model;
  if (sandbox !== undefined) profile.sandbox = sandbox as SandboxMode;
  if (typeof maxSteps === 'number') profile.maxSteps = maxSteps;
  return profile;
}

/** Options of {@link loadProfileDir}. */
export interface LoadProfileDirOptions {
  /** Called for each invalid file, which is then skipped; without it the first one throws. */
  onInvalid?: (error: InvalidProfileError) => void;
  /**
   * Symbolic links among the files (and the directory itself): `follow` (default; the user's own
   * directory) or `refuse` (a project's directory, which whoever controls the repository writes).
   */
  symlinks?: ProfileSymlinks;
}

/**
 * Reads every `*.md` profile file of a directory (for example `~/.spine/agents` or
 * `<project>/.spine/agents`), in name order. A missing directory has no profiles. Only regular
 * files of at most 256 KiB are read (a FIFO, socket, device or directory named `*.md` is not, and
 * never blocks the read); each file that cannot be used is reported alone.
 *
 * @throws an {@link InvalidProfileError} for the first invalid file (naming it and the key), or
 * when two files of the directory declare the same name, unless `onInvalid` takes them; also when
 * the directory itself is a symbolic link and `symlinks` is `refuse`.
 */
export async function loadProfileDir(
  dir: string,
  options: LoadProfileDirOptions = {},
): Promise<AgentProfile[]> {
  const symlinks = options.symlinks ?? 'follow';
  let names: string[];
  try {
    if (symlinks === 'refuse' && (await lstat(dir)).isSymbolicLink())
      fail(dir, 'file', 'the profile directory is a symbolic link; a project keeps its own');
    names = (await readdir(dir)).filter((name) => name.endsWith('.md')).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const profiles: AgentProfile[] = [];
  for (const name of names) {
    const path = join(dir, name);
    try {
      const profile = parseProfileFile(await readProfileText(path, symlinks), path);
      const twin = profiles.find((other) => other.name === profile.name);
      if (twin)
        fail(path, 'name', `${JSON.stringify(profile.name)} is also declared by ${twin.source}`);
      profiles.push(profile);
    } catch (error) {
      if (!(error instanceof InvalidProfileError) || !options.onInvalid) throw error;
      options.onInvalid(error);
    }
  }
  return profiles;
}
