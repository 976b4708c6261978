import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { PromptContribution } from './system-prompt.js';

/** One instruction file that enters the system prompt. */
export interface InstructionFile {
  /** Absolute path, shown to the model with the content. */
  path: string;
  /** The file's text (cut at {@link MAX_INSTRUCTION_BYTES}). */
  content: string;
  /** Where it applies: the user-level file, or a project folder. */
  scope: 'user' | 'project';
}

/** Instruction files are cut at this size so one file cannot flood the prompt. */
export const MAX_INSTRUCTION_BYTES = 32 * 1024;

/** The repository root containing `dir` (the nearest folder with `.git`), if any. */
function findRepositoryRoot(dir: string): string | undefined {
  let current = resolve(dir);
  for (;;) {
    if (existsSync(join(current, '.git'))) return current;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/**
 * Finds the instruction files for a workspace: the user-level file first, then `AGENTS.md`
 * from the repository root down to the workspace (most specific last). Outside a repository
 * only the workspace's own `AGENTS.md` is read. Unreadable files are skipped.
 *
 * @example
 * ```ts
 * const text = renderInstructions(findInstructionFiles(process.cwd(), { userFile }));
 * ```
 */
export function findInstructionFiles(
  cwd: string,
  options: { userFile?: string } = {},
): InstructionFile[] {
  const files: InstructionFile[] = [];
  if (options.userFile) {
    const user = readInstruction(options.userFile, 'user');
    if (user) files.push(user);
  }
  const workspace = resolve(cwd);
  const stop = findRepositoryRoot(workspace) ?? workspace;
  const dirs: string[] = [];
  for (let current = workspace; ; current = dirname(current)) {
    dirs.unshift(current);
    if (current === stop || dirname(current) === current) break;
  }
  for (const dir of dirs) {
    const file = readInstruction(join(dir, 'AGENTS.md'), 'project');
    if (file) files.push(file);
  }
  return files;
}

function readInstruction(
  path: string,
  scope: InstructionFile['scope'],
): InstructionFile | undefined {
  try {
    if (!statSync(path).isFile()) return undefined;
    const bytes = readFileSync(path);
    const cut = bytes.length > MAX_INSTRUCTION_BYTES;
    const text = bytes.subarray(0, MAX_INSTRUCTION_BYTES).toString('utf8');
    return {
      path,
      scope,
      content: cut ? `${text}\n[cut at ${MAX_INSTRUCTION_BYTES} bytes]` : text,
    };
  } catch {
    return undefined;
  }
}

/**
 * Renders instruction files as one system-prompt section, each under its path, so the model
 * knows where a rule comes from. Returns '' when there are none.
 */
export function renderInstructions(files: readonly InstructionFile[]): string {
  if (files.length === 0) return '';
  const parts = files.map((file) => `## ${file.path} (${file.scope})\n\n${file.content.trim()}`);
  return `# Project instructions\n\nFollow these instructions; later files are more specific.\n\n${parts.join('\n\n')}`;
}

/** Options of {@link createInstructionsContribution}. */
export interface InstructionsContributionOptions {
  /** The workspace root. */
  cwd: string;
  /** A user-level instruction file read before the project's `AGENTS.md` files. */
  userFile?: string;
}

/**
 * A prompt contribution with the project instructions ({@link findInstructionFiles}, rendered by
 * {@link renderInstructions}) as the `agents-md` section (order 50), read once when called so the
 * cached prompt prefix stays stable; undefined when there are no instruction files.
 *
 * @example
 * ```ts
 * const instructions = createInstructionsContribution({ cwd: process.cwd() });
 * if (instructions) prompt.register(instructions);
 * ```
 */
export function createInstructionsContribution(
  options: InstructionsContributionOptions,
): PromptContribution | undefined {
  const text = renderInstructions(
    findInstructionFiles(options.cwd, options.userFile ? { userFile: options.userFile } : {}),
  );
  if (!text) return undefined;
  return { id: 'instructions', sections: [{ id: 'agents-md', text, order: 50 }] };
}
