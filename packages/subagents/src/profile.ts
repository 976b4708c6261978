import type { SandboxMode } from '@spine/protocol';

/**
 * An agent profile: who a child agent is (its system prompt), what it may use (tools, sandbox)
 * and how long it may run. Built in: {@link EXPLORE_PROFILE} and {@link GENERAL_PROFILE};
 * more come from `.spine/agents/<name>.md` files ({@link parseProfileFile}).
 */
export interface AgentProfile {
  /** The name the parent model passes as `profile` (`[A-Za-z0-9_-]`, 1–64 characters). */
  name: string;
  /** When to use it, for the parent model (listed in the task tool's description). */
  description: string;
  /** The system prompt of the child. */
  prompt: string;
  /**
   * Tool names the child may use, intersected with the parent's visible tools (a child never
   * gets more than its parent). Absent: every tool of the parent.
   */
  tools?: readonly string[];
  /** Model to run the child on (`inherit` or absent: the parent's). Resolved by the caller. */
  model?: string;
  /** Sandbox mode of the child; narrowed to the parent's when it is wider. Absent: the parent's. */
  sandbox?: SandboxMode;
  /** Step limit of the child's turn. */
  maxSteps?: number;
  /** Where it came from: `built-in` or the file path. */
  source: string;
}

/** Sandbox modes from the narrowest to the widest. */
const ORDER: readonly SandboxMode[] = ['read-only', 'workspace-write', 'danger-full-access'];

/**
 * The narrower of two sandbox modes: a child runs in its profile's mode only when that is not
 * wider than its parent's.
 *
 * @example
 * ```ts
 * narrowerSandbox('workspace-write', 'danger-full-access'); // 'workspace-write'
 * ```
 */
export function narrowerSandbox(
  parent: SandboxMode,
  requested: SandboxMode | undefined,
): SandboxMode {
  if (requested === undefined) return parent;
  return ORDER.indexOf(requested) < ORDER.indexOf(parent) ? requested : parent;
}

/** Read-only tools of the workspace, language-server and web families (the explore set). */
export const READ_ONLY_TOOLS: readonly string[] = [
  'read',
  'grep',
  'glob',
  'list',
  'lsp_definition',
  'lsp_references',
  'lsp_symbols',
  'lsp_diagnostics',
  'lsp_call_hierarchy',
  'web_search',
  'web_fetch',
];

/** The built-in read-only investigator: searches and reads, reports findings with file:line. */
export const EXPLORE_PROFILE: AgentProfile = {
  name: 'explore',
  description:
    'Read-only investigation of the codebase (find where something is defined or used, how a feature works). Cannot change files or run commands. Returns concise findings with file:line references. Several explore tasks run in parallel.',
  prompt: `You are an exploration subagent of a coding agent. You investigate the workspace read-only and report back to the agent that delegated the task to you; it sees only your final answer, not your tool calls.
Search before you read (grep, glob, list), then read only the parts you need.
Your final answer is concise findings, each with a file:line reference (for example src/math.ts:12), and nothing else: no preamble, no plan, no offer of further help.
If you could not find something, say so plainly.`,
  tools: READ_ONLY_TOOLS,
  sandbox: 'read-only',
  source: 'built-in',
};

/** The built-in general-purpose worker: the parent's tools within the parent's sandbox. */
export const GENERAL_PROFILE: AgentProfile = {
  name: 'general',
  description:
    'A general-purpose agent for a self-contained multi-step task (change code, run commands and tests) with the same tools and sandbox as you. Runs alone (never in parallel with another task that writes). Returns what it did and what it changed.',
  prompt: `You are a subagent of a coding agent, working on one self-contained task in the user's workspace. The agent that delegated the task sees only your final answer, not your tool calls.
Work in small verified steps: read before you edit, run the tests after you change code.
End with a short final answer: what you did, the files you changed, the commands you ran and their outcome, and anything you could not do.`,
  source: 'built-in',
};

/** The built-in profiles, in the order the task tool lists them. */
export const BUILTIN_PROFILES: readonly AgentProfile[] = [EXPLORE_PROFILE, GENERAL_PROFILE];

/**
 * True when a child with this profile cannot change anything: its sandbox (after narrowing to
 * the parent's) is `read-only`. Such children are concurrency-safe and run in parallel.
 */
export function isReadOnlyProfile(profile: AgentProfile, parentSandbox: SandboxMode): boolean {
  return narrowerSandbox(parentSandbox, profile.sandbox) === 'read-only';
}

/**
 * Profiles by name, later sources overriding earlier ones (built-ins, then the user's files,
 * then the project's), in a stable order: built-ins first, then the rest by name.
 */
export function mergeProfiles(...sources: readonly (readonly AgentProfile[])[]): AgentProfile[] {
  const byName = new Map<string, AgentProfile>();
  for (const source of sources) for (const profile of source) byName.set(profile.name, profile);
  const builtIn = BUILTIN_PROFILES.map((profile) => profile.name);
  return [...byName.values()].sort((a, b) => {
    const ia = builtIn.indexOf(a.name);
    const ib = builtIn.indexOf(b.name);
    if (ia !== -1 || ib !== -1) return (ia === -1 ? 99 : ia) - (ib === -1 ? 99 : ib);
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
}
