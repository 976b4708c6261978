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
 * Reads what a child changed from its events: a file tool's call counts when its result is not
 * an error, a command counts whenever it started (it may have had effects even when it failed).
 * Changes reported by the child's own children (`agent/child/end`) are included.
 */
export function childChanges(
  events: readonly SessionEvent[],
  names: ChangeToolNames = {},
): ChildChanges {
  const fileTools = names.fileTools ?? ['write', 'edit'];
  const commandTools = names.commandTools ?? ['bash'];
  const started = new Map<string, ToolStartedBody>();
  const files: string[] = [];
  const commands: string[] = [];
  for (const event of events) {
    if (event.type === 'tool/started') {
      const body = event.body as ToolStartedBody;
      started.set(body.toolCallId, body);
      if (commandTools.includes(body.toolName)) {
        const command = parseArguments(body.arguments).command;
        if (typeof command === 'string') commands.push(command);
      }
    } else if (event.type === 'tool/result') {
      const body = event.body as ToolResultBody;
      const call = started.get(body.toolCallId);
      if (!call || body.isError || !fileTools.includes(call.toolName)) continue;
      const path = parseArguments(call.arguments).path;
      if (typeof path === 'string' && !files.includes(path)) files.push(path);
    } else if (event.type === 'agent/child/end') {
      const body = event.body as ChildEndBody;
      for (const path of body.files ?? []) if (!files.includes(path)) files.push(path);
      commands.push(...(body.commands ?? []));
    }
  }
  return { files, commands };
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
  let usage = NO_USAGE;
  for (const event of events) {
    if (event.type === 'assistant/message') {
      const body = event.body as AssistantMessageBody;
      if (body.usage) usage = addUsage(usage, body.usage);
    } else if (event.type === 'agent/child/end') {
      const body = event.body as ChildEndBody;
      if (body.usage) usage = addUsage(usage, body.usage);
    }
  }
  return usage;
}

/** All tokens of a usage record (prompt, cached and output). */
export function totalTokens(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
}
