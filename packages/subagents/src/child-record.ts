import {
  type AssistantMessageBody,
  addUsage,
  type ChildEndBody,
  type SessionEvent,
  type ToolResultBody,
  type ToolStartedBody,
  type Usage,
} from '@spine/protocol';

/** What a child changed, read from its log: files written and commands run, in order. */
export interface ChildChanges {
  /** Workspace paths the child's file tools changed (each once, first change first). */
  files: string[];
  /** Commands the child's shell tool ran (each run, in order). */
  commands: string[];
}

/** Which tools count as changing files and as running commands, by name. */
export interface ChangeToolNames {
  /** Tools whose `path` argument names a file they change. Default `write`, `edit`. */
  fileTools?: readonly string[];
  /** Tools whose `command` argument is a command line they run. Default `bash`. */
  commandTools?: readonly string[];
}

const NO_USAGE: Usage = {
  inputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
};

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/**
 * The workspace files a result verified after a crash says changed: a command's interrupted call
 * answered from the workspace checkpoint carries `meta.verifiedAfterCrash` and
 * `meta.changedFiles` (`"<kind> <path>"` each, as the harness's recovery writes them).
 */
function verifiedChanges(body: ToolResultBody): string[] {
  const meta = body.meta;
  if (meta?.verifiedAfterCrash !== true || !Array.isArray(meta.changedFiles)) return [];
  return meta.changedFiles.flatMap((entry) => {
    if (typeof entry !== 'string') return [];
    const space = entry.indexOf(' ');
    return space > 0 && space < entry.length - 1 ? [entry.slice(space + 1)] : [];
  });
}

/** {@link childChanges} one event at a time (a streamed log need not be held). */
export class ChangesFold {
  readonly #fileTools: readonly string[];
  readonly #commandTools: readonly string[];
  readonly #started = new Map<string, ToolStartedBody>();
  readonly #files: string[] = [];
  readonly #commands: string[] = [];

  constructor(names: ChangeToolNames = {}) {
    this.#fileTools = names.fileTools ?? ['write', 'edit'];
    this.#commandTools = names.commandTools ?? ['bash'];
  }

  /** The event types {@link ChangesFold.add} reads. */
  static readonly TYPES = ['tool/started', 'tool/result', 'agent/child/end'] as const;

  add(event: SessionEvent): void {
    const files = this.#files;
    if (event.type === 'tool/started') {
      const body = event.body as ToolStartedBody;
      // Only file tools' calls are looked up again (by their result).
      if (this.#fileTools.includes(body.toolName)) this.#started.set(body.toolCallId, body);
      else this.#started.delete(body.toolCallId);
      if (this.#commandTools.includes(body.toolName)) {
        const command = parseArguments(body.arguments).command;
        if (typeof command === 'string') this.#commands.push(command);
      }
    } else if (event.type === 'tool/result') {
      const body = event.body as ToolResultBody;
      for (const path of verifiedChanges(body)) if (!files.includes(path)) files.push(path);
      const call = this.#started.get(body.toolCallId);
      if (!call || body.isError) return;
      const path = parseArguments(call.arguments).path;
      if (typeof path === 'string' && !files.includes(path)) files.push(path);
    } else if (event.type === 'agent/child/end') {
      const body = event.body as ChildEndBody;
      for (const path of body.files ?? []) if (!files.includes(path)) files.push(path);
      this.#commands.push(...(body.commands ?? []));
    }
  }

  get result(): ChildChanges {
    return { files: [...this.#files], commands: [...this.#commands] };
  }
}

/**
 * Reads what a child changed from its events: a file tool's call counts when its result is not
 * an error, a command counts whenever it started (it may have had effects even when it failed),
 * and the files a result verified after a crash lists (`meta.changedFiles`) count as changed.
 * Changes reported by the child's own children (`agent/child/end`) are included.
 */
export function childChanges(
  events: readonly SessionEvent[],
  names: ChangeToolNames = {},
): ChildChanges {
  const fold = new ChangesFold(names);
  for (const event of events) fold.add(event);
  return fold.result;
}

/** {@link usageWithChildren} one event at a time. */
export class UsageFold {
  /** The event types {@link UsageFold.add} reads. */
  static readonly TYPES = ['assistant/message', 'agent/child/end'] as const;
  usage: Usage = NO_USAGE;

  add(event: SessionEvent): void {
    if (event.type === 'assistant/message') {
      const body = event.body as AssistantMessageBody;
      if (body.usage) this.usage = addUsage(this.usage, body.usage);
    } else if (event.type === 'agent/child/end') {
      const body = event.body as ChildEndBody;
      if (body.usage) this.usage = addUsage(this.usage, body.usage);
    }
  }
}

/**
 * Token usage of a session including its children: its own `assistant/message` usage plus the
 * usage each `agent/child/end` reports (which includes that child's own children).
 *
 * @example
 * ```ts
 * const total = usageWithChildren(session.events());
 * console.log(total.inputTokens + total.outputTokens);
 * ```
 */
export function usageWithChildren(events: readonly SessionEvent[]): Usage {
  const fold = new UsageFold();
  for (const event of events) fold.add(event);
  return fold.usage;
}

/** All tokens of a usage record (prompt, cached and output). */
export function totalTokens(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
}
