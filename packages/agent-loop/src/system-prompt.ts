import type { ToolSpec } from '@spine/protocol';
import { sha256 } from './internal/hash.js';

/** A stable block of system rules; sections are joined in `order`, then registration order. */
export interface PromptSection {
  /** Unique within its contribution. */
  id: string;
  /** The text; `{{name}}` placeholders are filled from the variables. */
  text: string;
  /** Lower comes first; default 100. */
  order?: number;
}

/**
 * What a plugin adds to the prompt: stable sections (system rules), runtime contexts (state
 * that changes: cwd, git branch …) and variables for the sections' placeholders.
 */
export interface PromptContribution {
  /** Identifies the contribution; registering the same id again replaces it. */
  id: string;
  /**
   * Stable system rules, read when the contribution is registered (register it again to change
   * them). Keep them stable: a change invalidates the provider's prompt cache.
   */
  sections?: readonly PromptSection[];
  /** Runtime state, read at every step; an `undefined` value is left out. */
  contexts?: () => Record<string, string | undefined>;
  /** Values for `{{name}}` placeholders in sections. */
  variables?: Record<string, string> | (() => Record<string, string>);
}

/** One step's view of the prompt: the system text, the runtime contexts, the tools and the variables. */
export interface PromptSnapshot {
  /** The rendered system prompt. */
  readonly system: string;
  /** `sha256:<hex>` of `system`. */
  readonly systemHash: string;
  /** Runtime contexts by key, keys sorted. They reach the model as runtime-context messages. */
  readonly contexts: Readonly<Record<string, string>>;
  /** The tools in force (as passed to `assemble`). */
  readonly tools: readonly ToolSpec[];
  /** The variables used to render the sections. */
  readonly variables: Readonly<Record<string, string>>;
}

/** Options of {@link SystemPrompt.assemble}. */
export interface AssembleOptions {
  /** The tools the model may call this step; their names become the `tools` context. */
  tools?: readonly ToolSpec[];
}

/**
 * Collects the prompt contributions plugins register and assembles a per-step snapshot.
 * Dynamic state goes into `contexts` (sent as runtime-context messages), never into the
 * system text, so the request prefix stays stable between steps.
 *
 * @example
 * ```ts
 * const prompt = new SystemPrompt();
 * const off = prompt.register({ id: 'rules', sections: [{ id: 'role', text: 'You are a careful coding agent.' }] });
 * const snapshot = prompt.assemble({ tools: scheduler.specs() });
 * off();
 * ```
 */
export class SystemPrompt {
  readonly #contributions = new Map<string, PromptContribution>();
  /** Bumped on every register and unregister: the sections in force changed. */
  #version = 0;
  #lastSystem: string | undefined;
  #lastHash = '';
  #last: CachedSnapshot | undefined;

  /** Creates a prompt, optionally with a first section of base rules. */
  constructor(base?: string) {
    if (base !== undefined)
      this.register({ id: 'base', sections: [{ id: 'base', text: base, order: 0 }] });
  }

  /** Adds (or replaces, by id) a contribution; returns a function that removes it. */
  register(contribution: PromptContribution): () => void {
    this.#contributions.set(contribution.id, contribution);
    this.#version++;
    return () => {
      if (this.#contributions.get(contribution.id) === contribution) {
        this.#contributions.delete(contribution.id);
        this.#version++;
      }
    };
  }

  /** The ids of the registered contributions, in registration order. */
  contributionIds(): string[] {
    return [...this.#contributions.keys()];
  }

  /**
   * Builds this step's snapshot from every registered contribution. When nothing changed
   * since the last call (same contributions, variables, contexts and tools), the previous
   * snapshot object is returned again: steps of a long turn then share one snapshot, and the
   * identity caches downstream (tool hashes, encoded tool lists) keep hitting.
   */
  assemble(options: AssembleOptions = {}): PromptSnapshot {
    const variables: Record<string, string> = {};
    const contexts: Record<string, string> = {};
    for (const contribution of this.#contributions.values()) {
      const values =
        typeof contribution.variables === 'function'
          ? contribution.variables()
          : contribution.variables;
      if (values) Object.assign(variables, values);
      if (contribution.contexts) {
        for (const [key, value] of Object.entries(contribution.contexts())) {
          if (value !== undefined) contexts[key] = value;
        }
      }
    }
    const last = this.#last;
    const tools = sameItems(last?.snapshot.tools, options.tools ?? NO_TOOLS);
    const names = last && tools === last.snapshot.tools ? last.toolNames : toolNames(tools);
    if (tools.length > 0 && contexts.tools === undefined) contexts.tools = names;
    if (
      last &&
      last.version === this.#version &&
      tools === last.snapshot.tools &&
      sameRecord(last.snapshot.variables, variables) &&
      sameRecord(last.snapshot.contexts, contexts)
    ) {
      return last.snapshot;
    }
    const system = this.#render(variables);
    if (system !== this.#lastSystem) {
      this.#lastSystem = system;
      this.#lastHash = sha256(system);
    }
    const snapshot: PromptSnapshot = {
      system,
      systemHash: this.#lastHash,
      contexts: Object.freeze(sortKeys(contexts)),
      tools,
      variables: Object.freeze(variables),
    };
    this.#last = {
      version: this.#version,
      snapshot,
      toolNames: names,
    };
    return snapshot;
  }

  #render(variables: Record<string, string>): string {
    const sections: Array<{ text: string; order: number; index: number }> = [];
    for (const contribution of this.#contributions.values()) {
      for (const section of contribution.sections ?? []) {
        sections.push({ text: section.text, order: section.order ?? 100, index: sections.length });
      }
    }
    sections.sort((a, b) => a.order - b.order || a.index - b.index);
    return sections.map((section) => render(section.text, variables)).join('\n\n');
  }
}

/** The last snapshot and what it was built from. */
interface CachedSnapshot {
  version: number;
  snapshot: PromptSnapshot;
  toolNames: string;
}

const NO_TOOLS: readonly ToolSpec[] = Object.freeze([]);

/** `previous` when `tools` holds exactly its specs in order (schedulers build fresh arrays). */
function sameItems(
  previous: readonly ToolSpec[] | undefined,
  tools: readonly ToolSpec[],
): readonly ToolSpec[] {
  if (!previous || previous === tools) return tools;
  if (previous.length !== tools.length) return tools;
  for (let i = 0; i < tools.length; i++) if (previous[i] !== tools[i]) return tools;
  return previous;
}

function toolNames(tools: readonly ToolSpec[]): string {
  return tools.map((tool) => tool.name).join(', ');
}

/** True when both records hold the same keys with the same values. */
function sameRecord(a: Readonly<Record<string, string>>, b: Record<string, string>): boolean {
  let count = 0;
  for (const key in b) {
    if (!ownProperty.call(b, key)) continue;
    if (!ownProperty.call(a, key) || a[key] !== b[key]) return false;
    count++;
  }
  return count === Object.keys(a).length;
}

const ownProperty = Object.prototype.hasOwnProperty;

function render(text: string, variables: Record<string, string>): string {
  return text.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (match, name: string) =>
    Object.hasOwn(variables, name) ? (variables[name] as string) : match,
  );
}

function sortKeys(record: Record<string, string>): Record<string, string> {
  const sorted: Record<string, string> = {};
  for (const key of Object.keys(record).sort()) sorted[key] = record[key] as string;
  return sorted;
}
