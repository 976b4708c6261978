import type {
  CompactionReason,
  SessionEvent,
  SessionLog,
  Summarizer,
  TokenMeter,
} from '@spine/protocol';
import type { SurfaceRegion } from './region.js';

/** Watermarks, as fractions of the usable window (context window minus reserved output). */
export interface CompactionThresholds {
  /** Above it a background candidate checkpoint is prepared (default 0.65). */
  soft?: number;
  /** At or above it compaction commits (default 0.8). */
  high?: number;
  /** A compaction must bring the context below it, or it counts as failed (default 0.45). */
  low?: number;
}

/** Options of {@link createCompactionEngine}. */
export interface CompactionEngineOptions {
  /** Measures the context; calibrated counts are compared with the thresholds. */
  meter: TokenMeter;
  /** Writes the LLM part of checkpoints; without one, checkpoints are deterministic only. */
  summarizer?: Summarizer;
  /** Watermarks relative to the current model's window. */
  thresholds?: CompactionThresholds;
  /** Automatic compaction on pressure and overflow (default true). Manual always works. */
  auto?: boolean;
  /** Prepare checkpoints in the background above the soft mark (default false). */
  background?: boolean;
  /** Recent context kept on the surface beyond the latest step (default 15 % of the window). */
  keepRecent?: KeepRecent;
  /** Consecutive failures that trip the breaker and stop automatic compaction (default 3). */
  maxConsecutiveFailures?: number;
  /** Marks events whose content a checkpoint carries verbatim (besides `pinned: true` bodies). */
  isPinned?: (event: SessionEvent) => boolean;
  /** Tokens budgeted for the LLM summary when projecting a compaction (default 2000). */
  summaryAllowance?: number;
  /**
   * Called once the engine has decided to compact (a manual or overflow request, or pressure at
   * or above the high mark; not when compaction is disabled, tripped, already running or not
   * needed), before anything is recorded. The engine waits for it; what it throws propagates
   * out of `compact()` with the surface untouched.
   */
  onBeforeCompact?: (info: BeforeCompactInfo) => void | Promise<void>;
}

/** What {@link CompactionEngineOptions.onBeforeCompact} is told about the coming compaction. */
export interface BeforeCompactInfo {
  /** The session about to be compacted. */
  session: SessionLog;
  /** Why it compacts. */
  reason: CompactionReason;
  /** The user's focus (`/compact focus`), if any. */
  focus?: string;
  /** The context's calibrated size now, in tokens. */
  tokens: number;
  /** The high mark in tokens: pressure compacts at or above it. */
  threshold: number;
  /** The usable window in tokens (context window minus reserved output). */
  window: number;
}

/** Per-session state of a compaction engine, for status lines and tests. */
export interface CompactionState {
  /** Consecutive failed compactions. */
  consecutiveFailures: number;
  /** True once the breaker stopped automatic compaction for this session. */
  tripped: boolean;
  /** A compaction is running now. */
  running: boolean;
  /** The background candidate, if one is being prepared or is ready. */
  candidate?: CandidateInfo;
}

/** How much recent context a compaction keeps on the surface beyond the latest step. */
export interface KeepRecent {
  /** A fraction of the usable window (default 0.15). */
  fraction?: number;
  /** An absolute number of tokens; wins over `fraction`. */
  tokens?: number;
}

/** A background candidate checkpoint, as {@link CompactionState} reports it. */
export interface CandidateInfo {
  /** The surface region it covers. */
  region: SurfaceRegion;
  /** The surface generation it was built from. */
  generation: number;
  /** True once its summary is written and it is recorded. */
  ready: boolean;
  /** Seq of its `compaction/candidate` event, once recorded. */
  seq?: number;
}
