import type {
  CompactionContext,
  CompactionEngine,
  CompactionOutcome,
  ModelClient,
  ModelRequest,
  RetryPolicy,
  SessionLog,
  SpineError,
  TokenMeter,
  ToolRunOptions,
  ToolScheduler,
  Usage,
} from '@spine/protocol';
import type { Inbox } from './inbox.js';
import type { AbortedBody } from './records.js';
import type { RequestBuilder } from './request-builder.js';
import type { RuntimeContextProjection } from './runtime-context.js';
import type { PromptSnapshot, SystemPrompt } from './system-prompt.js';
import type { AgentEvents } from './types.js';

/** Everything one turn needs; the agent owns it and may swap the model between turns. */
export interface LoopContext {
  session: SessionLog;
  model: ModelClient;
  modelId: string;
  contextWindow: number;
  maxOutputTokens?: number;
  tools: ToolScheduler;
  prompt: SystemPrompt;
  compaction?: CompactionEngine;
  retryPolicy: RetryPolicy;
  meter?: TokenMeter;
  maxSteps: number;
  approve?: ToolRunOptions['approve'];
  reasoning?: ModelRequest['reasoning'];
  agentName?: string;
  builder: RequestBuilder;
  projection: RuntimeContextProjection;
  inbox: Inbox;
  emit: <K extends keyof AgentEvents>(name: K, ...args: Parameters<AgentEvents[K]>) => void;
  /** True when someone listens to `name` (frequent events skip building their payload otherwise). */
  listens(name: keyof AgentEvents): boolean;
  addUsage(usage: Usage): void;
}

/** Where a turn's loop starts: a fresh step, or a retried attempt of a crashed step. */
export interface LoopStart {
  turn: number;
  step: number;
  attempt: number;
  /** True when `step/start` of `step` is already in the log. */
  stepStarted: boolean;
}

/** Thrown inside a turn when its signal fired; the loop records `agent/aborted`. */
export class Aborted {
  constructor(readonly phase: AbortedBody['phase']) {}
}

/** Thrown inside a turn when it must end with an error; the loop records `turn/end`. */
export class Failed {
  constructor(readonly error: SpineError) {}
}

/** Runs the compaction engine (if any) and reports outcomes the user should see to live listeners. */
export async function compact(
  context: LoopContext,
  snapshot: PromptSnapshot,
  reason: 'pressure' | 'overflow',
  at: { turn: number; step: number },
  signal?: AbortSignal,
): Promise<CompactionOutcome | undefined> {
  const engine = context.compaction;
  if (!engine) return undefined;
  const request: CompactionContext = {
    session: context.session,
    reason,
    contextWindow: context.contextWindow,
    system: snapshot.system,
    tools: snapshot.tools,
    ...at,
  };
  if (context.maxOutputTokens !== undefined) request.maxOutputTokens = context.maxOutputTokens;
  if (signal) request.signal = signal;
  const outcome = await engine.compact(request);
  if (signal?.aborted) throw new Aborted('compaction');
  // Failures and a tripped breaker reach the user too. Silent: 'not-needed', and 'disabled' at the
  // pre-step check (it would repeat every step; on overflow it explains why the turn fails).
  const silent =
    outcome.status === 'not-needed' || (outcome.status === 'disabled' && reason === 'pressure');
  if (!silent) context.emit('compaction', { ...at, outcome });
  return outcome;
}
