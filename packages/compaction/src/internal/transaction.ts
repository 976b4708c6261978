import type {
  AppendOptions,
  CompactionReason,
  ImagePart,
  SessionEvent,
  SessionLog,
  TokenMeter,
  ToolSpec,
} from '@spine/protocol';
import { frameCheckpoint, renderFacts } from '../checkpoint.js';
import { CompactionFailedError, type CompactionFailureStage } from '../errors.js';
import type { SurfaceRegion } from '../region.js';
import type { PreparedCheckpoint } from './prepare.js';
import { type FoldedImage, registeredSources } from './sources.js';

/** What one compaction transaction needs. */
export interface TransactionInput {
  session: SessionLog;
  reason: CompactionReason;
  mode: 'sync' | 'background';
  region: SurfaceRegion;
  tokensBefore: number;
  factor: number;
  /** The context must end below this many tokens. */
  lowTokens: number;
  contextWindow: number;
  meter: TokenMeter;
  system: string;
  tools: readonly ToolSpec[];
  eventOptions: AppendOptions;
  candidateSeq?: number;
  /** A failure now trips the breaker; recorded in `compaction/failed`. */
  failureTrips?: boolean;
  prepare(signal: AbortSignal | undefined): Promise<PreparedCheckpoint>;
  signal?: AbortSignal;
}

/** What a transaction did. */
export type TransactionResult =
  | {
      ok: true;
      compactionId: number;
      checkpointSeq: number;
      tokensAfter: number;
      summarizerError?: string;
    }
  | { ok: false; compactionId?: number; stage: CompactionFailureStage; message: string };

/**
 * The images the events `seqs` carried (user messages and tool results), with their seq, and
 * those earlier checkpoints among them had folded (from their `compaction/summary`, or the
 * sources fold when the session does not hold it: a lazily opened one), so the list stays whole
 * across repeated compactions.
 */
function imagesIn(session: SessionLog, seqs: readonly number[]): FoldedImage[] {
  const found: FoldedImage[] = [];
  const sources = registeredSources(session);
  for (const seq of seqs) {
    const event = session.get(seq);
    found.push(...(sources?.images?.[seq] ?? foldedBy(session, event)));
    if (event?.type !== 'user/message' && event?.type !== 'tool/result') continue;
    const images = (event.body as { images?: ImagePart[] }).images ?? [];
    for (const image of images) found.push({ seq, image });
  }
  return found;
}

/** The images a checkpoint event's own `compaction/summary` folded (none for other events). */
function foldedBy(session: SessionLog, event: SessionEvent | undefined): FoldedImage[] {
  for (const seq of event?.sourceEventSeqs?.slice(0, 3) ?? []) {
    const source = session.get(seq);
    if (source?.type !== 'compaction/summary') continue;
    return (source.body as { foldedImages?: FoldedImage[] }).foldedImages ?? [];
  }
  return [];
}

/** The checkpoint's line naming the folded images, or '' when there are none. */
function foldedImagesNote(folded: readonly FoldedImage[]): string {
  if (folded.length === 0) return '';
  const lines = folded.map(
    ({ seq, image }) =>
      `- seq ${seq}: ${image.mediaType} ${image.width}×${image.height}, sha256 ${image.sha256.slice(0, 12)}`,
  );
  return `\n\nImages folded here (not summarised; recall_history {"seq": N} shows one again):\n${lines.join('\n')}`;
}

/**
 * Runs `compaction/start` → `compaction/summary` → the replacing `user/message` →
 * `compaction/end`. The replace is the commit point: any failure before it appends
 * `compaction/failed` and leaves the surface as it was.
 */
export async function runTransaction(input: TransactionInput): Promise<TransactionResult> {
  const { session, region, eventOptions } = input;
  let compactionId: number | undefined;
  let stage: CompactionFailureStage = 'start';
  try {
    const start = session.append(
      'compaction/start',
      {
        reason: input.reason,
        mode: input.mode,
        region,
        tokensBefore: input.tokensBefore,
        lowTokens: input.lowTokens,
        contextWindow: input.contextWindow,
        generation: session.replaceGeneration,
        ...(input.candidateSeq !== undefined ? { candidateSeq: input.candidateSeq } : {}),
      },
      eventOptions,
    );
    compactionId = start.seq;
    stage = 'checkpoint';
    const prepared = await input.prepare(input.signal);
    stage = 'aborted';
    input.signal?.throwIfAborted();
    stage = 'reduction';
    const framed = chooseText(input, prepared, compactionId);
    // Images never enter a summary: the checkpoint lists the folded ones so recall can bring one back.
    const foldedImages = imagesIn(session, prepared.coveredSeqs);
    const text = framed.text + foldedImagesNote(foldedImages);
    stage = 'record';
    const summaryEvent = session.append(
      'compaction/summary',
      {
        compactionId,
        region,
        summary: framed.summary ?? null,
        summarizerError: framed.summarizerError ?? null,
        facts: prepared.facts,
        usage: prepared.usage ?? null,
        projectedTokens: framed.projected,
        ...(input.candidateSeq !== undefined ? { candidateSeq: input.candidateSeq } : {}),
        ...(foldedImages.length > 0 ? { foldedImages } : {}),
      },
      eventOptions,
    );
    stage = 'commit';
    const sources = [compactionId, summaryEvent.seq];
    if (input.candidateSeq !== undefined) sources.push(input.candidateSeq);
    const checkpoint = session.append(
      'user/message',
      { content: text, source: 'compact-checkpoint' },
      {
        ...eventOptions,
        surfaceOp: { op: 'replace', start: region.start, end: region.end },
        sourceEventSeqs: [...sources, ...prepared.coveredSeqs],
      },
    );
    const tokensAfter = input.meter.measure({
      session,
      system: input.system,
      tools: input.tools,
    }).tokens;
    try {
      session.append(
        'compaction/end',
        {
          compactionId,
          checkpointSeq: checkpoint.seq,
          tokensBefore: input.tokensBefore,
          tokensAfter,
          generation: session.replaceGeneration,
          deterministicOnly: framed.summary === undefined,
        },
        eventOptions,
      );
    } catch {
      // The replace already committed; a missing end marker does not undo it.
    }
    return {
      ok: true,
      compactionId,
      checkpointSeq: checkpoint.seq,
      tokensAfter,
      ...(framed.summarizerError ? { summarizerError: framed.summarizerError } : {}),
    };
  } catch (error) {
    const failure =
      error instanceof CompactionFailedError
        ? error.stage
        : input.signal?.aborted
          ? 'aborted'
          : stage;
    const message =
      error instanceof CompactionFailedError
        ? error.detail
        : error instanceof Error
          ? error.message
          : String(error);
    try {
      session.append(
        'compaction/failed',
        {
          compactionId: compactionId ?? null,
          reason: input.reason,
          stage: failure,
          message,
          region,
          breakerTripped: input.failureTrips === true,
        },
        eventOptions,
      );
    } catch {
      // Recording the failure failed too; the surface is still untouched.
    }
    return {
      ...(compactionId !== undefined ? { compactionId } : {}),
      ok: false,
      stage: failure,
      message,
    };
  }
}

interface FramedText {
  text: string;
  projected: number;
  summary?: string;
  summarizerError?: string;
}

function chooseText(
  input: TransactionInput,
  prepared: PreparedCheckpoint,
  compactionId: number,
): FramedText {
  const project = (text: string): number =>
    Math.ceil(
      input.tokensBefore +
        input.factor * (4 + input.meter.countText(text) - prepared.regionRawTokens),
    );
  const dropped = 'the model summary did not fit below the low mark, so it was left out';
  // Shorter and shorter checkpoints: the model summary is given up before the record's
  // quoted facts; long lists (files read, commands, fixed errors) keep only their latest
  // entries. Files modified, unfixed errors and open items are limited only as the last resort.
  const tries: { summary: boolean; limit?: number; limitOpen?: boolean }[] = [
    { summary: true },
    { summary: true, limit: 40 },
    { summary: false },
    { summary: false, limit: 40 },
    { summary: false, limit: 10 },
    { summary: false, limit: 3 },
    { summary: false, limit: 3, limitOpen: true },
  ];
  let projected = Number.POSITIVE_INFINITY;
  for (const attempt of tries) {
    if (attempt.summary && prepared.summary === undefined) continue;
    const record =
      attempt.limit === undefined
        ? prepared.record
        : renderFacts(prepared.facts, {
            limit: attempt.limit,
            ...(attempt.limitOpen ? { limitOpen: true } : {}),
          });
    const parts = { compactionId, region: prepared.region, record };
    const text = attempt.summary
      ? frameCheckpoint({ ...parts, summary: prepared.summary as string })
      : frameCheckpoint({ ...parts, summarizerError: prepared.summarizerError ?? dropped });
    projected = project(text);
    if (projected < input.lowTokens) {
      return attempt.summary
        ? { text, projected, summary: prepared.summary as string }
        : { text, projected, summarizerError: prepared.summarizerError ?? dropped };
    }
  }
  throw new CompactionFailedError({
    stage: 'reduction',
    detail: `the checkpoint would leave about ${projected} tokens, not below the low mark of ${input.lowTokens}`,
  });
}
