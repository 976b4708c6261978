import { existsSync, readFileSync, statSync } from 'node:fs';
import { platform as osPlatform, release } from 'node:os';
import { dirname, join } from 'node:path';
import type { SandboxMode } from '@spine/protocol';
import type { PromptContribution } from './system-prompt.js';

/** Options of {@link createEnvironmentContribution}. */
export interface EnvironmentContributionOptions {
  /** The workspace root. */
  cwd: string;
  /** The sandbox mode tools run under, shown to the model. */
  sandbox?: SandboxMode | (() => SandboxMode | undefined);
  /** Clock for the `date` context (tests pass a fixed one). Default: `new Date()`. */
  now?: () => Date;
  /** Overrides the `platform` context. Default: `<os> <release>`. */
  platform?: string;
}

/**
 * A prompt contribution with the runtime contexts every coding agent needs: `cwd`,
 * `platform`, `date` (day precision, so it changes at most daily), `git-branch` (read from
 * `.git/HEAD` at every step) and `sandbox`.
 *
 * @example
 * ```ts
 * prompt.register(createEnvironmentContribution({ cwd: process.cwd(), sandbox: 'workspace-write' }));
 * ```
 */
export function createEnvironmentContribution(
  options: EnvironmentContributionOptions,
): PromptContribution {
  const now = options.now ?? (() => new Date());
  const platform = options.platform ?? `${osPlatform()} ${release()}`;
  const head = findGitHead(options.cwd);
  return {
    id: 'environment',
    contexts: () => ({
      cwd: options.cwd,
      platform,
      date: now().toISOString().slice(0, 10),
      'git-branch': head ? readBranch(head) : undefined,
      sandbox: typeof options.sandbox === 'function' ? options.sandbox() : options.sandbox,
    }),
  };
}

function findGitHead(start: string): string | undefined {
  let dir = start;
  for (;;) {
    const candidate = join(dir, '.git');
    if (existsSync(candidate)) {
      if (statSync(candidate).isDirectory()) return join(candidate, 'HEAD');
      // A worktree or submodule: `.git` is a file naming the real git dir.
      const match = /^gitdir:\s*(.+)$/m.exec(readFileSync(candidate, 'utf8'));
      return match?.[1] ? join(match[1].trim(), 'HEAD') : undefined;
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function readBranch(headPath: string): string | undefined {
  try {
    const text = readFileSync(headPath, 'utf8').trim();
    const match = /^ref:\s*refs\/heads\/(.+)$/.exec(text);
    return match?.[1] ?? `detached at ${text.slice(0, 12)}`;
  } catch {
    return undefined;
  }
}
