import type { Message, SessionLog, TokenMeasure, TokenMeter, ToolSpec } from '@spine/protocol';
import { type ImageTokenRule, imageTokens } from './image-tokens.js';
import { createCalibration } from './internal/calibration.js';
import { resolveTokenizer, type Tokenizer, type TokenizerName } from './tokenizer.js';

/** Options of {@link createTokenMeter}. */
export interface TokenMeterOptions {
  /** A built-in tokenizer name or your own {@link Tokenizer} (default `o200k`). */
  tokenizer?: TokenizerName | Tokenizer;
  /** Tokens a provider's chat template adds per message (default 4). */
  messageOverhead?: number;
  /** Weight of the newest observation in the calibration factor, 0–1 (default 0.7). */
  calibrationWeight?: number;
  /** How an image part is counted (default `openai`: 85 + 170 per 512-px tile). */
  imageTokens?: ImageTokenRule;
}

/** The token meter `createTokenMeter` returns: the protocol interface plus per-message counts. */
export interface SpineTokenMeter extends TokenMeter {
  /** The tokenizer in use. */
  readonly tokenizer: Tokenizer;
  /** The smoothed ratio of reported to raw tokens (1 until the first observation). */
  readonly factor: number;
  /** Raw tokens of one message, template overhead included; cached per message object. */
  countMessage(message: Message): number;
}

interface SessionState {
  generation: number;
  length: number;
  lastSeq: number;
  total: number;
  bySeq: Map<number, number>;
}

/**
 * Creates a token meter that caches counts per event, so measuring a session after one append
 * costs only the new event, and calibrates itself from provider-reported prompt tokens.
 *
 * @example
 * ```ts
 * const meter = createTokenMeter({ tokenizer: 'o200k' });
 * const { tokens } = meter.measure({ session, system, tools });
 * meter.observe({ rawTokens: measured.rawTokens, reportedTokens: promptTokensOf(usage) });
 * ```
 */
export function createTokenMeter(options: TokenMeterOptions = {}): SpineTokenMeter {
  const tokenizer = resolveTokenizer(options.tokenizer);
  const overhead = options.messageOverhead ?? 4;
  const weight = Math.min(1, Math.max(0, options.calibrationWeight ?? 0.7));
  const imageRule = options.imageTokens ?? 'openai';
  const sessions = new WeakMap<SessionLog, SessionState>();
  const byMessage = new WeakMap<Message, number>();
  const toolsCache = new Map<string, number>();
  const calibration = createCalibration(weight);
  let lastSystem: string | undefined;
  let lastSystemCount = 0;

  function countMessage(message: Message): number {
    const cached = byMessage.get(message);
    if (cached !== undefined) return cached;
    let count = overhead;
    if (message.role === 'assistant') {
      for (const part of message.content) {
        if (part.type === 'tool-call') count += 8 + tokenizer.count(part.name + part.arguments);
        else count += tokenizer.count(part.text);
      }
    } else {
      count += tokenizer.count(message.content);
      for (const image of message.images ?? []) count += imageTokens(image, imageRule);
    }
    byMessage.set(message, count);
    return count;
  }

  function countSystem(system: string): number {
    if (system !== lastSystem) {
      lastSystem = system;
      lastSystemCount = system.length === 0 ? 0 : overhead + tokenizer.count(system);
    }
    return lastSystemCount;
  }

  function countTools(tools: readonly ToolSpec[]): number {
    if (tools.length === 0) return 0;
    const key = JSON.stringify(tools);
    let count = toolsCache.get(key);
    if (count === undefined) {
      count = tokenizer.count(key);
      if (toolsCache.size > 16) toolsCache.clear();
      toolsCache.set(key, count);
    }
    return count;
  }

  function countHistory(session: SessionLog): number {
    const derived = session.deriveMessages();
    let state = sessions.get(session);
    if (!state) {
      state = { generation: derived.generation, length: 0, lastSeq: 0, total: 0, bySeq: new Map() };
      sessions.set(session, state);
    }
    const { seqs, messages } = derived;
    const extends_ =
      derived.generation === state.generation &&
      seqs.length >= state.length &&
      (state.length === 0 || seqs[state.length - 1] === state.lastSeq);
    if (!extends_) {
      state.generation = derived.generation;
      state.length = 0;
      state.total = 0;
    }
    for (let index = state.length; index < seqs.length; index++) {
      const seq = seqs[index] as number;
      const message = messages[index] as Message;
      // An event may project to several messages; only the first is cached by seq.
      const first = index === 0 || seqs[index - 1] !== seq;
      let count = first ? state.bySeq.get(seq) : undefined;
      if (count === undefined) {
        count = countMessage(message);
        if (first) state.bySeq.set(seq, count);
      }
      state.total += count;
    }
    state.length = seqs.length;
    state.lastSeq = seqs.length === 0 ? 0 : (seqs[seqs.length - 1] as number);
    return state.total;
  }

  return {
    specificationVersion: 1,
    tokenizer,
    get factor() {
      return calibration.factor;
    },
    countText: (text) => tokenizer.count(text),
    countMessage,
    measure(input): TokenMeasure {
      const rawTokens =
        countSystem(input.system) + countTools(input.tools) + countHistory(input.session);
      const tokens = calibration.estimate(rawTokens);
      return { rawTokens, tokens, factor: rawTokens > 0 ? tokens / rawTokens : calibration.factor };
    },
    observe({ rawTokens, reportedTokens }) {
      calibration.observe(rawTokens, reportedTokens);
    },
  };
}
