import type { SessionLog, TokenMeter, ToolOutputBody, ToolResultBody } from '@spine/protocol';
import { DEFAULT_RESERVED_OUTPUT } from './overflow.js';

// The body of `tool/output` is declared with its schema in @spine/protocol.
export type { ToolOutputBody } from '@spine/protocol';

/** The share of the usable window (window minus the output reserve) one tool result may take. */
const RESULT_SHARE = 0.5;

/**
 * Cuts a tool result that could never fit the context window (more than half of the window
 * left after the output reserve) to that size before it reaches the surface, so one huge
 * output does not end the turn. The whole output is appended first as `tool/output`, and the
 * result records `meta.truncated`, `meta.originalLength` and `meta.originalSeq`; the text the
 * model sees keeps the head and the tail and says where the rest is. Returns `body` itself
 * when it fits.
 */
export function fitToolResult(
  session: SessionLog,
  body: ToolResultBody,
  options: {
    contextWindow: number;
    maxOutputTokens?: number;
    meter?: TokenMeter;
    at: { turn: number; step: number };
  },
): ToolResultBody {
  const { content } = body;
  const reserve = options.maxOutputTokens ?? DEFAULT_RESERVED_OUTPUT;
  const capTokens = Math.max(256, Math.floor((options.contextWindow - reserve) * RESULT_SHARE));
  // Cheap bound first: no tokenizer produces fewer tokens than characters / 16.
  if (content.length <= capTokens) return body;
  const tokens = options.meter ? options.meter.countText(content) : Math.ceil(content.length / 4);
  if (tokens <= capTokens) return body;
  const original = session.append<ToolOutputBody>(
    'tool/output',
    { toolCallId: body.toolCallId, toolName: body.toolName, content },
    options.at,
  );
  // Characters to keep, scaled by this text's own characters-per-token, with a margin.
  const keep = Math.max(64, Math.floor(((content.length * capTokens) / tokens) * 0.9));
  const head = content.slice(0, Math.ceil((keep * 2) / 3));
  const tail = content.slice(content.length - Math.floor(keep / 3));
  const note = `\n\n[tool output cut to fit the context window: ${content.length} characters (about ${tokens} tokens), ${content.length - head.length - tail.length} characters left out here; the whole output is event #${original.seq} in the session log: read it in parts with recall_history {"seq": ${original.seq}, "offset": 0}, or ask for a narrower result (a line range, a filter).]\n\n`;
  return {
    ...body,
    content: head + note + tail,
    meta: {
      ...(body.meta ?? {}),
      truncated: true,
      originalLength: content.length,
      originalSeq: original.seq,
    },
  };
}
