// How a Spine tool call looks in ACP: kind, title, file locations and content. Pure functions of
// the recorded call and result, so a live turn and a `session/load` of it show the same thing.
import { isAbsolute, resolve } from 'node:path';
import type {
  SessionUpdate,
  ToolCall,
  ToolCallContent,
  ToolCallLocation,
  ToolCallUpdate,
  ToolKind,
} from '@agentclientprotocol/sdk';
import type { ToolResultBody } from '@spine/protocol';

/** `_meta` key on a tool call whose outcome Spine cannot know (interrupted by a crash). */
export const OUTCOME_UNKNOWN_META = 'spine.dev/outcomeUnknown';

/** `_meta` key on such a call whose effect the workspace checkpoints verified (the verdict). */
export const VERIFIED_META = 'spine.dev/verifiedAfterCrash';

const KINDS: Record<string, ToolKind> = {
  read: 'read',
  list: 'read',
  recall_history: 'read',
  glob: 'search',
  grep: 'search',
  web_search: 'fetch',
  web_fetch: 'fetch',
  write: 'edit',
  edit: 'edit',
  remember: 'edit',
  bash: 'execute',
  task: 'think',
};

type Args = Record<string, unknown>;

/** The parsed arguments of a call, or `{}` when they are not a JSON object. */
export function parseArguments(text: string): Args {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Args)
      : {};
  } catch {
    return {};
  }
}

/** The ACP kind of a Spine tool. */
export function toolKind(name: string): ToolKind {
  return KINDS[name] ?? (name.startsWith('lsp_') ? 'search' : 'other');
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** One line that says what the call does: `bash: npm test`, `edit src/a.ts`. */
export function toolTitle(name: string, args: Args): string {
  const path = text(args.path);
  const line =
    name === 'bash'
      ? `bash: ${text(args.command) ?? ''}`
      : name === 'grep' || name === 'glob'
        ? `${name} ${text(args.pattern) ?? ''}${path ? ` in ${path}` : ''}`
        : name === 'web_fetch'
          ? `fetch ${text(args.url) ?? ''}`
          : name === 'web_search'
            ? `search ${text(args.query) ?? ''}`
            : name === 'task'
              ? `subagent: ${text(args.description) ?? text(args.prompt) ?? ''}`
              : path
                ? `${name} ${path}`
                : name;
  // One line, bounded: a title is a label, the content carries the detail.
  const single = line.replace(/\s+/g, ' ').trim();
  return single.length > 200 ? `${single.slice(0, 199)}…` : single;
}

/** The file a call touches, absolute (ACP paths are absolute). */
export function toolLocations(cwd: string, args: Args): ToolCallLocation[] {
  const path = text(args.path);
  if (!path) return [];
  const line = typeof args.offset === 'number' ? { line: args.offset } : {};
  return [{ path: isAbsolute(path) ? path : resolve(cwd, path), ...line }];
}

/** The diff of a `write` (whole new text) or an `edit` (one entry per replacement), from its arguments. */
export function diffContent(cwd: string, name: string, args: Args): ToolCallContent[] {
  const path = text(args.path);
  if (!path) return [];
  const absolute = isAbsolute(path) ? path : resolve(cwd, path);
  if (name === 'write' && typeof args.content === 'string')
    return [{ type: 'diff', path: absolute, oldText: null, newText: args.content }];
  if (name === 'edit' && Array.isArray(args.edits))
    return args.edits.flatMap((edit: unknown): ToolCallContent[] => {
      const { oldText, newText } = (edit ?? {}) as Args;
      return typeof oldText === 'string' && typeof newText === 'string'
        ? [{ type: 'diff', path: absolute, oldText, newText }]
        : [];
    });
  return [];
}

/** A text block as tool-call content. */
export function textContent(value: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text: value } };
}

/** What the client shows before the call runs (and in a permission request). */
export function proposedContent(cwd: string, name: string, args: Args): ToolCallContent[] {
  if (name === 'bash') return [textContent(`$ ${text(args.command) ?? ''}`)];
  return diffContent(cwd, name, args);
}

/** The `tool_call` announcing a call the model proposed. */
export function toolCallOf(
  cwd: string,
  call: { id: string; name: string; arguments: string },
): ToolCall {
  const args = parseArguments(call.arguments);
  return {
    toolCallId: call.id,
    title: toolTitle(call.name, args),
    kind: toolKind(call.name),
    status: 'pending',
    content: proposedContent(cwd, call.name, args),
    locations: toolLocations(cwd, args),
    rawInput: args,
  };
}

/** The final `tool_call_update` of a committed result. */
export function toolResultUpdate(
  cwd: string,
  call: { name: string; arguments: string } | undefined,
  result: ToolResultBody,
): ToolCallUpdate {
  const args = call ? parseArguments(call.arguments) : {};
  const name = call?.name ?? result.toolName;
  const marker = crashMarker(result);
  // A successful write/edit keeps its diff; everything else shows the result text.
  const diff = !result.isError ? diffContent(cwd, name, args) : [];
  const content =
    name === 'bash'
      ? [textContent(`$ ${text(args.command) ?? ''}\n${result.content}`)]
      : diff.length > 0
        ? diff
        : [textContent(result.content)];
  return {
    toolCallId: result.toolCallId,
    status: result.isError ? 'failed' : 'completed',
    content,
    rawOutput: { content: result.content, isError: result.isError, ...outcomeOf(result) },
    ...(marker ? { _meta: marker } : {}),
  };
}

/** A result's update as a session update, with its child session's `_meta` link when it had one. */
export function withChild(
  update: ToolCallUpdate,
  child: Record<string, unknown> | undefined,
): SessionUpdate {
  return {
    sessionUpdate: 'tool_call_update',
    ...update,
    ...(child ? { _meta: { ...update._meta, ...child } } : {}),
  };
}

/**
 * The `_meta` of a call a crash interrupted: Spine's recovery answered it "outcome unknown", or the
 * workspace checkpoints verified what it did (`meta.verdict`). Undefined for any other result.
 */
function crashMarker(result: ToolResultBody): Record<string, unknown> | undefined {
  if (result.outcome === 'unknown') return { [OUTCOME_UNKNOWN_META]: true };
  const meta = result.meta as { verifiedAfterCrash?: unknown; verdict?: unknown } | undefined;
  if (meta?.verifiedAfterCrash === true && typeof meta.verdict === 'string')
    return { [VERIFIED_META]: meta.verdict };
  return undefined;
}

function outcomeOf(result: ToolResultBody): { outcome?: string } {
  return result.outcome === undefined ? {} : { outcome: result.outcome };
}
