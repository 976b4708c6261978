import { z } from 'zod';
import { ImagePartSchema } from './images.js';
import { JsonValueSchema } from './json.js';

// Bodies of the events a compaction engine writes. Like every body, objects accept fields they
// do not name; the fields below are the ones readers (replay, rerun, recall) rely on.

const count = z.number().int().nonnegative();
const positive = z.number().int().positive();

/** A run of surface seqs, inclusive. */
export const SurfaceRegionSchema = z.object({
  start: positive.describe('Seq of the first surface event of the region.'),
  end: positive.describe('Seq of the last surface event of the region.'),
});
/** A run of surface seqs, inclusive. */
export type SurfaceRegionBody = z.infer<typeof SurfaceRegionSchema>;

/** Body of `compaction/start`: a compaction began; its seq is the compaction id. */
export const CompactionStartBodySchema = z.object({
  reason: z.string().describe('`pressure`, `overflow` or `manual`.'),
  mode: z.string().optional().describe('`sync` or `background`.'),
  region: SurfaceRegionSchema.describe('The surface region to be replaced.'),
  tokensBefore: count.optional().describe('Prompt tokens before.'),
  lowTokens: count.optional().describe('The low mark the checkpoint aims under.'),
  contextWindow: count.optional().describe("The model's context window."),
  generation: count.optional().describe('Surface generation at the start.'),
  candidateSeq: positive.optional().describe('The `compaction/candidate` being committed.'),
});
/** Body of `compaction/start`. */
export type CompactionStartBody = z.infer<typeof CompactionStartBodySchema>;

/** Body of `compaction/summary`: what the checkpoint was built from. */
export const CompactionSummaryBodySchema = z.object({
  compactionId: positive.describe('Seq of the `compaction/start`.'),
  region: SurfaceRegionSchema.optional().describe('The region summarised.'),
  summary: z.string().nullable().optional().describe("The summarizer's text, or null."),
  summarizerError: z.string().nullable().optional().describe('Why there is no summary.'),
  facts: z.array(JsonValueSchema).optional().describe('Facts extracted deterministically.'),
  usage: JsonValueSchema.optional().describe("The summarizer's token usage, or null."),
  projectedTokens: count.optional().describe('Projected tokens of the checkpoint.'),
  candidateSeq: positive.optional().describe('The candidate it came from.'),
  foldedImages: z
    .array(z.object({ seq: positive, image: ImagePartSchema }))
    .optional()
    .describe('Images of the folded events (kept out of the summary; recall brings one back).'),
});
/** Body of `compaction/summary`. */
export type CompactionSummaryBody = z.infer<typeof CompactionSummaryBodySchema>;

/** Body of `compaction/end`: the replace committed. */
export const CompactionEndBodySchema = z.object({
  compactionId: positive.describe('Seq of the `compaction/start`.'),
  checkpointSeq: positive.describe('Seq of the replacing `user/message`.'),
  tokensBefore: count.optional().describe('Prompt tokens before.'),
  tokensAfter: count.optional().describe('Prompt tokens after.'),
  generation: count.optional().describe('Surface generation after the replace.'),
  deterministicOnly: z.boolean().optional().describe('True when no model summary was used.'),
});
/** Body of `compaction/end`. */
export type CompactionEndBody = z.infer<typeof CompactionEndBodySchema>;

/** Body of `compaction/failed`: the surface was left as it was. */
export const CompactionFailedBodySchema = z.object({
  compactionId: positive.nullable().optional().describe('Seq of the `compaction/start`, if any.'),
  reason: z.string().optional().describe('Why the compaction ran.'),
  stage: z.string().describe('Where it failed (`select`, `start`, `checkpoint`, …).'),
  message: z.string().describe('What went wrong.'),
  region: SurfaceRegionSchema.optional().describe('The region it tried to replace.'),
  breakerTripped: z.boolean().optional().describe('True when failures tripped the breaker.'),
});
/** Body of `compaction/failed`. */
export type CompactionFailedBody = z.infer<typeof CompactionFailedBodySchema>;

/** Body of `compaction/candidate`: a checkpoint prepared in the background, not yet committed. */
export const CompactionCandidateBodySchema = z.object({
  region: SurfaceRegionSchema.describe('The region it would replace.'),
  generation: count.describe('Surface generation it was prepared at.'),
  facts: z.array(JsonValueSchema).optional().describe('Facts extracted deterministically.'),
  summary: z.string().nullable().optional().describe("The summarizer's text, or null."),
  summarizerError: z.string().nullable().optional().describe('Why there is no summary.'),
  regionRawTokens: count.optional().describe('Tokens of the region as it stands.'),
});
/** Body of `compaction/candidate`. */
export type CompactionCandidateBody = z.infer<typeof CompactionCandidateBodySchema>;

/** Body of `compaction/discarded`: a candidate was dropped. */
export const CompactionDiscardedBodySchema = z.object({
  candidateSeq: positive.nullable().optional().describe('The candidate, if it was recorded.'),
  region: SurfaceRegionSchema.optional().describe('Its region.'),
  generation: count.optional().describe('Generation it was prepared at.'),
  currentGeneration: count.optional().describe('Generation when it was dropped.'),
  reason: z.string().describe('Why it was dropped.'),
});
/** Body of `compaction/discarded`. */
export type CompactionDiscardedBody = z.infer<typeof CompactionDiscardedBodySchema>;
