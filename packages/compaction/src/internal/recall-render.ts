import type { SessionEvent, SessionLog, ToolOutput } from '@spine/protocol';
import type { RecallHistoryArgs } from '../recall-history.js';
import { eventAt, type StreamingSessionLog } from './recall-read.js';
import { clip, isMessageEvent, messagesOfEvent, renderMessages } from './render.js';

/** A `tool/output` event: the whole output of a tool whose result was cut to fit the window. */
export type ToolOutputEvent = SessionEvent<{
  toolCallId: string;
  toolName: string;
  content: string;
}>;

/** True for a well-formed `tool/output` event. */
export function isToolOutput(event: SessionEvent): event is ToolOutputEvent {
  if (event.type !== 'tool/output') return false;
  const body = event.body as Record<string, unknown> | null;
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof body.toolCallId === 'string' &&
    typeof body.toolName === 'string' &&
    typeof body.content === 'string'
  );
}

function headingOf(session: SessionLog, event: SessionEvent): string {
  const where =
    event.turn !== undefined
      ? ` · turn ${event.turn}${event.step !== undefined ? ` step ${event.step}` : ''}`
      : '';
  return `--- #${event.seq}${where} · ${labelOf(session, event)} ---`;
}

function labelOf(session: SessionLog, event: SessionEvent): string {
  if (isToolOutput(event)) {
    const { toolName, toolCallId, content } = event.body;
    return `whole output of tool ${toolName} ${toolCallId} (${content.length} characters)`;
  }
  const messages = messagesOfEvent(session, event);
  const only = messages?.length === 1 ? messages[0] : undefined;
  if (only?.role === 'tool') return `tool result ${only.toolName} ${only.toolCallId}`;
  if (only && ['user/message', 'assistant/message'].includes(event.type)) return only.role;
  return event.type;
}

/** The text of an event that recall returns: its projected messages, or a tool's whole output. */
function textOf(session: SessionLog, event: SessionEvent): string {
  if (isToolOutput(event)) return event.body.content;
  const messages = messagesOfEvent(session, event);
  return messages
    ? renderMessages(messages)
    : `[an event of type ${event.type} that this session cannot project]`;
}

/**
 * Renders one recalled event with its heading, cut to `limit` characters; the note on a cut
 * event says how to read the rest (page with `offset` when it was the only match).
 */
export function renderEvent(
  session: SessionLog,
  event: SessionEvent,
  limit: number,
  alone: boolean,
): string {
  const body = textOf(session, event);
  if (body.length <= limit) return `${headingOf(session, event)}\n${body}`;
  const more = alone
    ? `read it in parts with recall_history {"seq": ${event.seq}, "offset": 0}`
    : `call recall_history with {"seq": ${event.seq}} alone for more`;
  return `${headingOf(session, event)}\n${clip(body, limit)}\n[event truncated from ${body.length} characters; ${more}]`;
}

/**
 * Answers a recall with `offset`/`length`: characters `offset … offset+length` of one event's
 * text (for `tool/output`, the tool's output exactly), with a heading that gives the range and a
 * note naming the next offset while text is left.
 */
export async function pageOfEvent(
  session: StreamingSessionLog,
  args: RecallHistoryArgs,
  maxChars: number,
): Promise<ToolOutput> {
  const others = Object.entries(args).filter(
    ([key, value]) => value !== undefined && !['seq', 'offset', 'length'].includes(key),
  );
  if (args.seq === undefined || others.length > 0) {
    return {
      content: `offset and length read one event in parts: give them with seq alone, e.g. {"seq": 12, "offset": 0}${others.length > 0 ? `, not with ${others.map(([key]) => key).join(', ')}` : ''}.`,
      isError: true,
    };
  }
  const event = await eventAt(session, args.seq);
  if (!event || !(isMessageEvent(event) || isToolOutput(event))) {
    return {
      content: `Event #${args.seq} is not a conversation event or tool output in this session log.`,
      isError: true,
    };
  }
  const text = textOf(session, event);
  const offset = args.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0 || (offset >= text.length && text.length > 0)) {
    return {
      content: `offset ${offset} is outside event #${event.seq}, which has ${text.length} characters (offsets 0 to ${Math.max(0, text.length - 1)}).`,
      isError: true,
    };
  }
  const length = Math.min(args.length ?? maxChars, maxChars);
  if (!Number.isInteger(length) || length < 1) {
    return { content: `length must be a positive integer, got ${length}.`, isError: true };
  }
  const end = Math.min(text.length, offset + length);
  const left = text.length - end;
  const next =
    left > 0
      ? `\n[${left} characters follow; call recall_history with {"seq": ${event.seq}, "offset": ${end}} for the next part]`
      : `\n[end of event #${event.seq}]`;
  return {
    content: `${headingOf(session, event)}\n[characters ${offset} to ${end} of ${text.length}]\n${text.slice(offset, end)}${next}`,
    meta: { recalledSeqs: [event.seq], offset, end, totalChars: text.length },
  };
}
