import type { ToolCallPart, ToolResultBody, ToolResultMeta } from '@spine/protocol';

/** Outcomes a result can carry (the `tool/result` schema's enum). */
export type ToolOutcome = NonNullable<ToolResultBody['outcome']>;

/** Builds an error result for a call that did not (fully) run. */
export function errorResult(
  call: Pick<ToolCallPart, 'id' | 'name'>,
  outcome: ToolOutcome,
  content: string,
  meta?: ToolResultMeta,
): ToolResultBody {
  const body: ToolResultBody = {
    toolCallId: call.id,
    toolName: call.name,
    content,
    isError: true,
    outcome,
  };
  if (meta) body.meta = meta;
  return body;
}

/** Cuts `content` to `max` characters and says so, for the model and in the metadata. */
export function truncateContent(
  content: string,
  max: number,
): { content: string; truncated: boolean; originalLength: number } {
  if (content.length <= max) return { content, truncated: false, originalLength: content.length };
  const note = `\n\n[Output truncated: showing the first ${max} of ${content.length} characters. Narrow the request (line range, pattern, limit) to see the rest.]`;
  return { content: content.slice(0, max) + note, truncated: true, originalLength: content.length };
}

/** Renders an unknown thrown value as text for the model. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
