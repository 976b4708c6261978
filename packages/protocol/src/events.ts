import { z } from 'zod';
import type {
  CompactionCandidateBody,
  CompactionDiscardedBody,
  CompactionEndBody,
  CompactionFailedBody,
  CompactionStartBody,
  CompactionSummaryBody,
} from './compaction-bodies.js';
import {
  CompactionCandidateBodySchema,
  CompactionDiscardedBodySchema,
  CompactionEndBodySchema,
  CompactionFailedBodySchema,
  CompactionStartBodySchema,
  CompactionSummaryBodySchema,
} from './compaction-bodies.js';
import { type EventSurfaceRole, TOOL_RESULT_OUTCOMES } from './event-values.js';
import { type HookRunBody, HookRunBodySchema } from './hook-bodies.js';
import { ImagePartSchema } from './images.js';
import {
  type JobEndBody,
  JobEndBodySchema,
  type JobRecoveredBody,
  JobRecoveredBodySchema,
  type JobStartBody,
  JobStartBodySchema,
} from './job-bodies.js';
import { JsonValueSchema } from './json.js';
import type {
  AbortedBody,
  AttemptBody,
  InboxSplicedBody,
  PromptSystemBody,
  RequestContextBody,
  RequestHeaderBody,
  RetryBody,
  RetryStartedBody,
  SessionForkedBody,
  StepEndBody,
  StepStartBody,
  ToolOutputBody,
  ToolProgressBody,
  ToolsDefinedBody,
  TurnEndBody,
  TurnStartBody,
} from './loop-bodies.js';
import {
  AbortedBodySchema,
  AttemptBodySchema,
  InboxSplicedBodySchema,
  PromptSystemBodySchema,
  RequestContextBodySchema,
  RequestHeaderBodySchema,
  RetryBodySchema,
  RetryStartedBodySchema,
  SessionForkedBodySchema,
  StepEndBodySchema,
  StepStartBodySchema,
  ToolOutputBodySchema,
  ToolProgressBodySchema,
  ToolsDefinedBodySchema,
  TurnEndBodySchema,
  TurnStartBodySchema,
} from './loop-bodies.js';
import { type LoopDetectedBody, LoopDetectedBodySchema } from './loop-bodies-detect.js';
import { AssistantPartSchema } from './messages.js';
import {
  type BudgetExceededBody,
  BudgetExceededBodySchema,
  type PlanModeBody,
  PlanModeBodySchema,
} from './plan-bodies.js';
import { type SessionConfigBody, SessionConfigBodySchema } from './session-config-bodies.js';
import { type LeaseTakeoverBody, LeaseTakeoverBodySchema } from './store-bodies.js';
import type { ChildEndBody, ChildStartBody } from './subagent-bodies.js';
import { ChildEndBodySchema, ChildStartBodySchema } from './subagent-bodies.js';
import { type SessionTitleBody, SessionTitleBodySchema } from './title-bodies.js';
import type { SamplingAnsweredBody, ToolsChangedBody } from './tools-bodies.js';
import { SamplingAnsweredBodySchema, ToolsChangedBodySchema } from './tools-bodies.js';
import { UsageSchema } from './usage.js';
import type { WorkspaceCheckpointBody, WorkspaceRestoredBody } from './workspace-bodies.js';
import { WorkspaceCheckpointBodySchema, WorkspaceRestoredBodySchema } from './workspace-bodies.js';

export type { EventSurfaceRole } from './event-values.js';
export { FORMAT_VERSION } from './event-values.js';

/** A change to the surface (the seqs that take part in model history). */
export const SurfaceOpSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('append') }),
  z.object({
    op: z.literal('replace'),
    start: z.number().int().positive(),
    end: z.number().int().positive(),
  }),
]);
/** `append` adds the event to the surface; `replace` swaps the region `start..end` (seqs, inclusive) for it. */
export type SurfaceOp = z.infer<typeof SurfaceOpSchema>;

/** One event of the append-only session log: one JSON object, one line in the JSONL store. */
export const SessionEventSchema = z.object({
  seq: z.number().int().positive(),
  type: z.string().min(1),
  at: z.string(),
  turn: z.number().int().nonnegative().optional(),
  step: z.number().int().nonnegative().optional(),
  body: JsonValueSchema,
  surfaceOp: SurfaceOpSchema.optional(),
  sourceEventSeqs: z.array(z.number().int().positive()).optional(),
});
/** One event of the session log. `body` is typed per event type by {@link EventBodies}. */
export interface SessionEvent<Body = unknown> {
  /** 1, 2, 3 … gapless, assigned by append. */
  seq: number;
  /** The event type, `noun/verb`. */
  type: string;
  /** ISO-8601 time of the append. */
  at: string;
  /** The turn this event belongs to. */
  turn?: number;
  /** The step (within the turn) this event belongs to. */
  step?: number;
  /** JSON payload, validated on append. */
  body: Body;
  /** Present on events that change the surface. */
  surfaceOp?: SurfaceOp;
  /** Events this one was derived from (a checkpoint names what it summarises). */
  sourceEventSeqs?: number[];
}

/** Body of `session/header`, always the first event. */
export const SessionHeaderBodySchema = z.object({
  formatVersion: z.number().int().positive(),
  sessionId: z.string().min(1),
  createdAt: z.string(),
  cwd: z.string().optional(),
  title: z.string().optional(),
  model: z.string().optional(),
  parent: z
    .object({
      sessionId: z.string(),
      atSeq: z.number().int().nonnegative(),
      // Set on a subagent's session: the parent's `task` call this child answers.
      toolCallId: z.string().optional(),
      // Set on a fork of a chained JSONL log: the parent's chain values at seq 1 and at atSeq
      // (and of the parent's own parents), so the copied request headers' records stay checkable.
      chain: z
        .object({
          start: z.string(),
          end: z.string(),
          ancestors: z
            .array(z.object({ atSeq: z.number().int().nonnegative(), start: z.string() }))
            .optional(),
        })
        .optional(),
    })
    .optional(),
  meta: z.record(z.string(), JsonValueSchema).optional(),
});
/** Body of `session/header`. */
export type SessionHeaderBody = z.infer<typeof SessionHeaderBodySchema>;

/** Well-known values of `user/message` `source`. Plugins may use their own names. */
export type UserMessageSource =
  | 'user'
  | 'runtime-context'
  | 'compact-checkpoint'
  | 'recall'
  | (string & {});

/** Body of `user/message`. */
export const UserMessageBodySchema = z.object({
  content: z.string(),
  source: z.string(),
  pinned: z.boolean().optional(),
  meta: z.record(z.string(), JsonValueSchema).optional(),
  images: z.array(ImagePartSchema).optional(),
});
/** Body of `user/message`. */
export type UserMessageBody = z.infer<typeof UserMessageBodySchema> & { source: UserMessageSource };

/** Body of `assistant/message`: the final message of one successful attempt. */
export const AssistantMessageBodySchema = z.object({
  content: z.array(AssistantPartSchema),
  finishReason: z.string(),
  rawFinishReason: z.string().optional(),
  usage: UsageSchema.optional(),
  model: z.string().optional(),
  provider: z.string().optional(),
  attempt: z.number().int().positive().optional(),
});
/** Body of `assistant/message`. */
export type AssistantMessageBody = z.infer<typeof AssistantMessageBodySchema>;

/** Metadata every tool result carries into the log. */
export const ToolResultMetaSchema = z
  .object({
    durationMs: z.number().nonnegative().optional(),
    truncated: z.boolean().optional(),
    originalLength: z.number().int().nonnegative().optional(),
    contentType: z.string().optional(),
    sourcePath: z.string().optional(),
    sourceUrl: z.string().optional(),
    provider: z.string().optional(),
    params: JsonValueSchema.optional(),
    sandbox: z.string().optional(),
    exitCode: z.number().int().optional(),
  })
  .catchall(JsonValueSchema);
/** Metadata every tool result carries into the log. */
export type ToolResultMeta = z.infer<typeof ToolResultMetaSchema>;

/** Body of `tool/result`: the content exactly as the model sees it, plus metadata. */
export const ToolResultBodySchema = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  content: z.string(),
  isError: z.boolean(),
  outcome: z.literal(TOOL_RESULT_OUTCOMES).optional(),
  meta: ToolResultMetaSchema.optional(),
  images: z.array(ImagePartSchema).optional(),
});
/** Body of `tool/result`. */
export type ToolResultBody = z.infer<typeof ToolResultBodySchema>;

/** Body of `tool/started`, written before a tool executes. */
export const ToolStartedBodySchema = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  arguments: z.string(),
});
/** Body of `tool/started`. */
export type ToolStartedBody = z.infer<typeof ToolStartedBodySchema>;

/** Body of `tool/approval`: one approval decision, as data. */
export const ToolApprovalBodySchema = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  decision: z.literal(['allow', 'deny']),
  by: z.string(),
  reason: z.string().optional(),
  scope: z.literal(['once', 'session', 'rule', 'policy']).optional(),
  escalation: z.record(z.string(), JsonValueSchema).optional(),
});
/** Body of `tool/approval`. */
export type ToolApprovalBody = z.infer<typeof ToolApprovalBodySchema>;

/** Body of `session/recovered`. */
export const SessionRecoveredBodySchema = z.object({
  reason: z.string(),
  truncatedBytes: z.number().int().nonnegative().optional(),
  details: z.record(z.string(), JsonValueSchema).optional(),
});
/** Body of `session/recovered`. */
export type SessionRecoveredBody = z.infer<typeof SessionRecoveredBodySchema>;

/** Built-in event types, their surface role and their body schema. */
export const BUILTIN_EVENT_TYPES: Readonly<
  Record<string, { surface: EventSurfaceRole; body: z.ZodType }>
> = {
  'session/header': { surface: 'none', body: SessionHeaderBodySchema },
  'session/recovered': { surface: 'none', body: SessionRecoveredBodySchema },
  'session/forked': { surface: 'none', body: SessionForkedBodySchema },
  'turn/start': { surface: 'none', body: TurnStartBodySchema },
  'turn/end': { surface: 'none', body: TurnEndBodySchema },
  'step/start': { surface: 'none', body: StepStartBodySchema },
  'step/end': { surface: 'none', body: StepEndBodySchema },
  'user/message': { surface: 'surface', body: UserMessageBodySchema },
  'assistant/message': { surface: 'surface', body: AssistantMessageBodySchema },
  'assistant/attempt': { surface: 'none', body: AttemptBodySchema },
  'llm/retry': { surface: 'none', body: RetryBodySchema },
  'llm/retry-started': { surface: 'none', body: RetryStartedBodySchema },
  'request/header': { surface: 'none', body: RequestHeaderBodySchema },
  'request/context': { surface: 'none', body: RequestContextBodySchema },
  'prompt/system': { surface: 'none', body: PromptSystemBodySchema },
  'tools/defined': { surface: 'none', body: ToolsDefinedBodySchema },
  'agent/inbox/spliced': { surface: 'none', body: InboxSplicedBodySchema },
  'agent/aborted': { surface: 'none', body: AbortedBodySchema },
  'agent/child/start': { surface: 'none', body: ChildStartBodySchema },
  'agent/child/end': { surface: 'none', body: ChildEndBodySchema },
  'tool/approval': { surface: 'none', body: ToolApprovalBodySchema },
  'tool/started': { surface: 'none', body: ToolStartedBodySchema },
  'tool/progress': { surface: 'none', body: ToolProgressBodySchema },
  'tool/result': { surface: 'surface', body: ToolResultBodySchema },
  // The whole output of a tool whose result was cut to fit the context window (the result's
  // `meta.originalSeq` points here); never on the surface.
  'tool/output': { surface: 'none', body: ToolOutputBodySchema },
  'compaction/start': { surface: 'none', body: CompactionStartBodySchema },
  'compaction/summary': { surface: 'none', body: CompactionSummaryBodySchema },
  'compaction/end': { surface: 'none', body: CompactionEndBodySchema },
  'compaction/failed': { surface: 'none', body: CompactionFailedBodySchema },
  'compaction/candidate': { surface: 'none', body: CompactionCandidateBodySchema },
  'compaction/discarded': { surface: 'none', body: CompactionDiscardedBodySchema },
  'workspace/checkpoint': { surface: 'none', body: WorkspaceCheckpointBodySchema },
  'workspace/restored': { surface: 'none', body: WorkspaceRestoredBodySchema },
  'tools/changed': { surface: 'none', body: ToolsChangedBodySchema },
  'sampling/answered': { surface: 'none', body: SamplingAnsweredBodySchema },
  'lease/takeover': { surface: 'none', body: LeaseTakeoverBodySchema },
  'session/title': { surface: 'none', body: SessionTitleBodySchema },
  'plan/mode': { surface: 'none', body: PlanModeBodySchema },
  'session/config': { surface: 'none', body: SessionConfigBodySchema },
  'loop/detected': { surface: 'none', body: LoopDetectedBodySchema },
  'budget/exceeded': { surface: 'none', body: BudgetExceededBodySchema },
  'hook/run': { surface: 'none', body: HookRunBodySchema },
  'job/start': { surface: 'none', body: JobStartBodySchema },
  'job/end': { surface: 'none', body: JobEndBodySchema },
  'job/recovered': { surface: 'none', body: JobRecoveredBodySchema },
};

/** Typed bodies of the built-in event types, one per entry of {@link BUILTIN_EVENT_TYPES}. */
export interface EventBodies {
  'session/forked': SessionForkedBody;
  'turn/start': TurnStartBody;
  'turn/end': TurnEndBody;
  'step/start': StepStartBody;
  'step/end': StepEndBody;
  'assistant/attempt': AttemptBody;
  'llm/retry': RetryBody;
  'llm/retry-started': RetryStartedBody;
  'request/header': RequestHeaderBody;
  'request/context': RequestContextBody;
  'prompt/system': PromptSystemBody;
  'tools/defined': ToolsDefinedBody;
  'agent/inbox/spliced': InboxSplicedBody;
  'agent/aborted': AbortedBody;
  'agent/child/start': ChildStartBody;
  'agent/child/end': ChildEndBody;
  'tool/progress': ToolProgressBody;
  'tool/output': ToolOutputBody;
  'compaction/start': CompactionStartBody;
  'compaction/summary': CompactionSummaryBody;
  'compaction/end': CompactionEndBody;
  'compaction/failed': CompactionFailedBody;
  'compaction/candidate': CompactionCandidateBody;
  'compaction/discarded': CompactionDiscardedBody;
  'workspace/checkpoint': WorkspaceCheckpointBody;
  'workspace/restored': WorkspaceRestoredBody;
  'tools/changed': ToolsChangedBody;
  'sampling/answered': SamplingAnsweredBody;
  'lease/takeover': LeaseTakeoverBody;
  'session/title': SessionTitleBody;
  'plan/mode': PlanModeBody;
  'session/config': SessionConfigBody;
  'loop/detected': LoopDetectedBody;
  'budget/exceeded': BudgetExceededBody;
  'hook/run': HookRunBody;
  'job/start': JobStartBody;
  'job/end': JobEndBody;
  'job/recovered': JobRecoveredBody;
  'session/header': SessionHeaderBody;
  'session/recovered': SessionRecoveredBody;
  'user/message': UserMessageBody;
  'assistant/message': AssistantMessageBody;
  'tool/result': ToolResultBody;
  'tool/started': ToolStartedBody;
  'tool/approval': ToolApprovalBody;
}
