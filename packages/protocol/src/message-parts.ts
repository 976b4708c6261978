// The zod-free message helpers (the schemas are in messages.ts): part of `@spine/protocol/core`.
import type { AssistantMessage, ToolCallPart } from './messages.js';

/** The tool calls of an assistant message, in order. */
export function toolCallsOf(message: AssistantMessage): ToolCallPart[] {
  return message.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
}

/** The concatenated text parts of an assistant message. */
export function textOf(message: AssistantMessage): string {
  let text = '';
  for (const part of message.content) if (part.type === 'text') text += part.text;
  return text;
}
