import type { Message } from './messages.js';
import type { ToolSpec } from './tool-spec.js';
import type { Usage } from './usage.js';

/** What a summariser receives: the region's messages and the prompt and tools in force then. */
export interface SummarizationInput {
  /** The system prompt in force when the region was last sent. */
  system: string;
  /** The tools in force then. */
  tools: readonly ToolSpec[];
  /** The messages of the region to summarise. */
  messages: readonly Message[];
  /** Optional focus the user asked for (`/compact focus on the parser`). */
  focus?: string;
}

/** A summariser's answer. */
export interface SummarizationResult {
  /** The summary text (the LLM part of a checkpoint). */
  summary: string;
  /** Tokens spent producing it, if a model was called. */
  usage?: Usage;
}

/**
 * Produces the LLM part of a compaction checkpoint.
 *
 * Contract: throws on failure (model error, abort); the compaction engine records
 * `compaction/failed` or falls back to the deterministic checkpoint.
 */
export interface Summarizer {
  /** Interface version. */
  readonly specificationVersion: 1;
  /** Summarises the input. */
  summarize(
    input: SummarizationInput,
    options?: { signal?: AbortSignal },
  ): Promise<SummarizationResult>;
}
