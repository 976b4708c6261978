import type {
  AssistantMessageBody,
  Message,
  SessionEvent,
  SessionLog,
  ToolCallPart,
  ToolResultBody,
  UserMessageBody,
} from '@spine/protocol';

/** The built-in event types that take part in model history. */
export const MESSAGE_EVENT_TYPES: ReadonlySet<string> = new Set([
  'user/message',
  'assistant/message',
  'tool/result',
]);

/** True for an event that projects to messages: a built-in message type or one with a surface op. */
export function isMessageEvent(event: SessionEvent): boolean {
  return MESSAGE_EVENT_TYPES.has(event.type) || event.surfaceOp !== undefined;
}

/**
 * The messages an event projects to, through the session's own projection (its projector and
 * registered event types), so custom projectors are honoured. An event the session cannot
 * project (an unknown type kept by a newer writer) gives `undefined`.
 */
export function messagesOfEvent(
  session: SessionLog,
  event: SessionEvent,
): readonly Message[] | undefined {
  try {
    return session.project(event);
  } catch {
    return undefined;
  }
}

/** The tool calls an `assistant/message` event proposed. */
export function toolCallsOfEvent(event: SessionEvent): ToolCallPart[] {
  if (event.type !== 'assistant/message') return [];
  const body = event.body as AssistantMessageBody;
  return body.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
}

/** The call id a `tool/result` event answers. */
export function resultCallIdOf(event: SessionEvent): string | undefined {
  return event.type === 'tool/result' ? (event.body as ToolResultBody).toolCallId : undefined;
}

/** True for a `user/message` that is a compaction checkpoint. */
export function isCheckpointEvent(event: SessionEvent): boolean {
  return (
    event.type === 'user/message' && (event.body as UserMessageBody).source === 'compact-checkpoint'
  );
}

/** Renders the messages of one event as plain text, one after another. */
export function renderMessages(messages: readonly Message[]): string {
  return messages.map(renderMessage).join('\n');
}

/** Renders one message as plain text, the way a transcript or a recall shows it. */
export function renderMessage(message: Message): string {
  if (message.role === 'user') return message.content;
  if (message.role === 'tool') {
    const flag = message.isError ? ' (error)' : '';
    return `[tool result ${message.toolName} ${message.toolCallId}${flag}]\n${message.content}`;
  }
  const lines: string[] = [];
  for (const part of message.content) {
    if (part.type === 'text') lines.push(part.text);
    else if (part.type === 'reasoning') lines.push(`[reasoning] ${part.text}`);
    else lines.push(`[tool call ${part.name} ${part.id}] ${part.arguments}`);
  }
  return lines.join('\n');
}

/** Cuts `text` to `limit` characters, keeping head and tail and saying how much was left out. */
export function clip(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = Math.max(0, Math.floor(limit * 0.7));
  const tail = Math.max(0, limit - head);
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}\n[… ${omitted} characters omitted …]\n${text.slice(text.length - tail)}`;
}

/** Parses tool-call arguments; invalid JSON gives an empty object. */
export function parseArguments(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
