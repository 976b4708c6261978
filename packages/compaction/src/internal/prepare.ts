import type {
  Message,
  SessionEvent,
  SessionLog,
  SummarizationInput,
  Summarizer,
  TokenMeter,
  ToolSpec,
  Usage,
} from '@spine/protocol';
import { buildDeterministicCheckpoint } from '../checkpoint.js';
import type { CheckpointFact } from '../checkpoint-facts.js';
import type { SurfaceRegion } from '../region.js';
import { buildSummarizationInput } from '../summarization-input.js';
import { renderMessage } from './render.js';

/** A checkpoint ready to commit. */
export interface PreparedCheckpoint {
  region: SurfaceRegion;
  generation: number;
  coveredSeqs: number[];
  facts: CheckpointFact[];
  record: string;
  summary?: string;
  summarizerError?: string;
  usage?: Usage;
  /** Raw tokens of the region's messages. */
  regionRawTokens: number;
}

/** What preparing a checkpoint needs. */
export interface PrepareInput {
  session: SessionLog;
  region: SurfaceRegion;
  system: string;
  tools: readonly ToolSpec[];
  focus?: string;
  meter: TokenMeter;
  isPinned?: (event: SessionEvent) => boolean;
}

/** The synchronous part of preparing: the record and the summariser's input, fixed now. */
export interface CheckpointSnapshot {
  base: PreparedCheckpoint;
  input: SummarizationInput;
}

/** Raw tokens of a message with the meter's own per-message count when it has one. */
export function messageTokens(meter: TokenMeter, message: Message): number {
  const counting = meter as TokenMeter & { countMessage?: (message: Message) => number };
  return counting.countMessage
    ? counting.countMessage(message)
    : 4 + meter.countText(renderMessage(message));
}

/** Builds the deterministic record and freezes the summariser input for `region`. */
export function snapshotCheckpoint(input: PrepareInput): CheckpointSnapshot {
  const { session, region } = input;
  const deterministic = buildDeterministicCheckpoint(
    session,
    region,
    input.isPinned ? { isPinned: input.isPinned } : {},
  );
  const summarization = buildSummarizationInput(session, region, {
    system: input.system,
    tools: input.tools,
    ...(input.focus ? { focus: input.focus } : {}),
  });
  let regionRawTokens = 0;
  for (const message of summarization.messages)
    regionRawTokens += messageTokens(input.meter, message);
  return {
    base: {
      region,
      generation: session.replaceGeneration,
      coveredSeqs: deterministic.coveredSeqs,
      facts: deterministic.facts,
      record: deterministic.text,
      regionRawTokens,
    },
    input: summarization,
  };
}

/**
 * Adds the LLM part. A summariser failure leaves the deterministic record alone (recorded in
 * `summarizerError`); an abort propagates.
 */
export async function summarizeSnapshot(
  snapshot: CheckpointSnapshot,
  summarizer: Summarizer | undefined,
  signal: AbortSignal | undefined,
): Promise<PreparedCheckpoint> {
  if (!summarizer) return { ...snapshot.base, summarizerError: 'no summariser is configured' };
  try {
    const result = await summarizer.summarize(snapshot.input, signal ? { signal } : {});
    signal?.throwIfAborted();
    return {
      ...snapshot.base,
      summary: result.summary,
      ...(result.usage ? { usage: result.usage } : {}),
    };
  } catch (error) {
    if (signal?.aborted) throw signal.reason ?? error;
    const message = error instanceof Error ? error.message : String(error);
    return { ...snapshot.base, summarizerError: `the summariser failed: ${message}` };
  }
}
