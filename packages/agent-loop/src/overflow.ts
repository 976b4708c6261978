import type { Message, SessionLog, TokenMeter, ToolSpec } from '@spine/protocol';

/** What does not fit the context window, as {@link diagnoseOverflow} found it. */
export interface OverflowDiagnosis {
  /**
   * `system-and-tools`: the system prompt and tool definitions alone; `tool-result` or `message`:
   * one message of the history; `history`: the history as a whole (compaction could not shrink it).
   */
  part: 'system-and-tools' | 'tool-result' | 'message' | 'history';
  /** Estimated tokens of that part. */
  tokens: number;
  /** The model's context window, in tokens. */
  contextWindow: number;
  /** Tokens kept free for the answer. */
  reservedOutput: number;
  /** Estimated tokens of the system prompt and tools. */
  fixedTokens: number;
  /** Seq of the offending message's event (`tool-result` and `message`). */
  seq?: number;
  /** Tool name and call id of an offending tool result. */
  toolName?: string;
  /** Call id of an offending tool result. */
  toolCallId?: string;
}

/** Output tokens reserved when no output cap is configured. */
export const DEFAULT_RESERVED_OUTPUT = 4_096;

/** Rough tokens of a text when no meter is configured: one per 4 characters, rounded up. */
function estimate(text: string, meter: TokenMeter | undefined): number {
  return meter ? meter.countText(text) : Math.ceil(text.length / 4);
}

function messageText(message: Message): string {
  if (message.role !== 'assistant') return message.content;
  let text = '';
  for (const part of message.content) {
    text += part.type === 'tool-call' ? `${part.name}${part.arguments}` : part.text;
  }
  return text;
}

/**
 * Says what keeps a request from fitting the context window: the system prompt and tools
 * alone, one message (a tool result or another message) that cannot fit beside them, or the
 * history as a whole. Sizes are estimates (the meter's tokenizer, or 4 characters a token).
 */
export function diagnoseOverflow(input: {
  session: SessionLog;
  system: string;
  tools: readonly ToolSpec[];
  contextWindow: number;
  maxOutputTokens?: number;
  meter?: TokenMeter;
}): OverflowDiagnosis {
  const { contextWindow, meter } = input;
  const reservedOutput = input.maxOutputTokens ?? DEFAULT_RESERVED_OUTPUT;
  const budget = contextWindow - reservedOutput;
  const fixedTokens = estimate(input.system, meter) + estimate(JSON.stringify(input.tools), meter);
  const base = { contextWindow, reservedOutput, fixedTokens };
  if (fixedTokens >= budget) return { part: 'system-and-tools', tokens: fixedTokens, ...base };
  const { messages, seqs } = input.session.deriveMessages();
  let largest = -1;
  let largestTokens = 0;
  let total = 0;
  for (let i = 0; i < messages.length; i++) {
    const tokens = estimate(messageText(messages[i] as Message), meter);
    total += tokens;
    if (tokens > largestTokens) {
      largest = i;
      largestTokens = tokens;
    }
  }
  const message = messages[largest];
  if (message && fixedTokens + largestTokens >= budget) {
    const diagnosis: OverflowDiagnosis = {
      part: message.role === 'tool' ? 'tool-result' : 'message',
      tokens: largestTokens,
      seq: seqs[largest] as number,
      ...base,
    };
    if (message.role === 'tool') {
      diagnosis.toolName = message.toolName;
      diagnosis.toolCallId = message.toolCallId;
    }
    return diagnosis;
  }
  return { part: 'history', tokens: total, ...base };
}

/** One sentence naming what does not fit, with sizes. */
export function describeOverflow(diagnosis: OverflowDiagnosis): string {
  const room = `${diagnosis.contextWindow} tokens, ${diagnosis.reservedOutput} kept for the answer`;
  switch (diagnosis.part) {
    case 'system-and-tools':
      return `the system prompt and tool definitions alone take about ${diagnosis.tokens} tokens, more than the context window allows (${room})`;
    case 'tool-result':
      return `the result of ${diagnosis.toolName} (call ${diagnosis.toolCallId}, event #${diagnosis.seq}) takes about ${diagnosis.tokens} tokens and cannot fit beside the system prompt and tools (about ${diagnosis.fixedTokens} tokens) in the context window (${room})`;
    case 'message':
      return `one message (event #${diagnosis.seq}) takes about ${diagnosis.tokens} tokens and cannot fit beside the system prompt and tools (about ${diagnosis.fixedTokens} tokens) in the context window (${room})`;
    case 'history':
      return `the history takes about ${diagnosis.tokens} tokens and compaction could not bring it under the context window (${room})`;
  }
}
