import { z } from 'zod';
import { ATTEMPT_OUTCOMES, PREFIX_CHANGE_CAUSES, TURN_END_REASONS } from './event-values.js';
import { JsonValueSchema } from './json.js';
import { ToolSpecSchema } from './tool-spec.js';
import { UsageSchema } from './usage.js';

// Bodies of the events the agent loop writes. They are plain JSON so the CLI, replay and other
// readers can interpret a log without any package's classes. Objects accept fields they do not
// name (a reader ignores what it does not know), so a writer may add fields without a new format.

const count = z.number().int().nonnegative();
const positive = z.number().int().positive();

/** Why the prefix of a request differs from the previous request's, or what was added. */
export const PrefixChangeCauseSchema = z.literal(PREFIX_CHANGE_CAUSES);
/** Why the prefix of a request differs from the previous request's, or what was added. */
export type PrefixChangeCause = z.infer<typeof PrefixChangeCauseSchema>;

/** Which messages a request carried, as seqs: the first `keep` of request `base`, then `ranges`. */
export const RecordedSeqsSchema = z.object({
  base: positive
    .optional()
    .describe('Seq of an earlier `request/header` whose message seqs this one starts with.'),
  keep: count.optional().describe("How many of `base`'s seqs are kept."),
  ranges: z.array(z.tuple([positive, positive])).describe('Inclusive runs of further seqs.'),
});
/** Which messages a request carried, as seqs. */
export type RecordedSeqs = z.infer<typeof RecordedSeqsSchema>;

/** How a request's prefix compares with the previous request of the session. */
export const PrefixComparisonSchema = z.object({
  previous: positive.optional().describe('Seq of the previous `request/header`, if any.'),
  kept: count.describe('Leading messages unchanged from the previous request.'),
  of: count.describe('How many messages the previous request had.'),
  extends: z
    .boolean()
    .describe('True when system, tools, model and every earlier message are unchanged.'),
  causes: z
    .array(PrefixChangeCauseSchema)
    .describe('What changed; `runtime-context-inserted` alone does not break the prefix.'),
});
/** How a request's prefix compares with the previous request of the session. */
export type PrefixComparison = z.infer<typeof PrefixComparisonSchema>;

/** Body of `request/header`: everything needed to rebuild one model request from the log. */
export const RequestHeaderBodySchema = z.object({
  turn: count.describe('The turn of the request.'),
  step: count.describe('The step within the turn.'),
  attempt: positive.describe('The attempt within the step, from 1.'),
  model: z.string().describe('The model id sent.'),
  provider: z.string().describe('The provider name of the model client.'),
  systemHash: z.string().describe('Hash of the system prompt, stored once in `prompt/system`.'),
  toolsHash: z.string().describe('Hash of the tool list, stored once in `tools/defined`.'),
  generation: count.describe('Surface generation the messages were derived at.'),
  messageCount: count.describe('How many messages the request carried.'),
  seqs: RecordedSeqsSchema.describe('The seqs the messages came from.'),
  addedHashes: z
    .array(z.string())
    .describe(
      'One short hash (16 hex digits) per message after the kept prefix: the chain value with `hashing: "chain/1"`, in legacy headers the hash of the message alone.',
    ),
  messagesHash: z.string().describe('`sha256:<hex>` of the messages.'),
  requestHash: z.string().describe('`sha256:<hex>` of the request (messages and params).'),
  hashing: z
    .literal('chain/1')
    .optional()
    .describe(
      'chain/1: c_0 = sha256("spine/message-chain/1"), c_i = sha256(c_{i-1} + "\\n" + canonical JSON of message i), messagesHash = c_n, requestHash = sha256(c_n + "\\n" + canonical JSON of the params). Absent: a running SHA-256 over {"messages":[…],"params":{…}}.',
    ),
  maxOutputTokens: count.optional().describe('The output token cap sent, if any.'),
  reasoning: z
    .object({
      enabled: z.boolean(),
      effort: z.literal(['low', 'medium', 'high', 'max']).optional(),
      budgetTokens: count.optional(),
    })
    .optional()
    .describe('The reasoning control sent, if any.'),
  sessionId: z.string().optional().describe('The session id sent with the request.'),
  imageFallback: z
    .literal('placeholder')
    .optional()
    .describe(
      "`placeholder`: the request's images were sent as lines of text (the model does not accept images); part of the request hash. Absent: images were sent as images (in logs written before this field, as the client was configured then).",
    ),
  prefix: PrefixComparisonSchema.describe('Prefix comparison with the previous request.'),
  estimatedTokens: count
    .optional()
    .describe("The token meter's estimate of the prompt, when a meter is configured."),
  chain: z
    .object({
      seq: positive.describe('The seq of the last line the store had written.'),
      h: z.string().describe("That line's chain value (its `h`)."),
    })
    .optional()
    .describe(
      'The chain head when the request was built, for stores that chain their lines: the last line written then (a store writing in groups may not have written the latest events yet). Not part of the request or its hash; `verifyJsonlLog` checks it.',
    ),
});
/** Body of `request/header`. */
export type RequestHeaderBody = z.infer<typeof RequestHeaderBodySchema>;

/** Body of `request/context`: the dynamic context snapshot a request was built with. */
export const RequestContextBodySchema = z.object({
  request: positive.describe('Seq of the `request/header` it belongs to.'),
  contexts: z.record(z.string(), z.string()).describe('The runtime contexts of the snapshot.'),
  variables: z.record(z.string(), z.string()).describe('The prompt variables of the snapshot.'),
});
/** Body of `request/context`. */
export type RequestContextBody = z.infer<typeof RequestContextBodySchema>;

/** Body of `prompt/system`, stored once per content hash. */
export const PromptSystemBodySchema = z.object({
  hash: z.string().describe('`sha256:<hex>` of `text`.'),
  text: z.string().describe('The system prompt text.'),
});
/** Body of `prompt/system`. */
export type PromptSystemBody = z.infer<typeof PromptSystemBodySchema>;

/** Body of `tools/defined`, stored once per content hash. */
export const ToolsDefinedBodySchema = z.object({
  hash: z.string().describe('`sha256:<hex>` of the canonical JSON of `tools`.'),
  tools: z.array(ToolSpecSchema).describe('The tool specs, in the order sent.'),
});
/** Body of `tools/defined`. */
export type ToolsDefinedBody = z.infer<typeof ToolsDefinedBodySchema>;

/** Body of `assistant/attempt`: how one network request ended. */
export const AttemptBodySchema = z.object({
  request: positive.describe("Seq of the attempt's `request/header`."),
  attempt: positive.describe('The attempt number.'),
  outcome: z
    .literal(ATTEMPT_OUTCOMES)
    .describe('`interrupted`: the process stopped during the attempt.'),
  code: z.string().optional().describe('The error code of a failed attempt.'),
  message: z.string().optional().describe('The error message of a failed attempt.'),
  retryable: z.boolean().optional().describe('Whether the failure was classified as transient.'),
  status: z.number().int().optional().describe('HTTP status, when there was one.'),
  cacheHitTokens: count.optional().describe('Provider-reported prompt tokens read from cache.'),
  cacheMissTokens: count.optional().describe('Provider-reported prompt tokens not from cache.'),
  usage: UsageSchema.optional().describe("The attempt's full usage."),
  messageSeq: positive.optional().describe('Seq of the `assistant/message` it produced.'),
  prefixCauses: z
    .array(PrefixChangeCauseSchema)
    .optional()
    .describe("What broke the provider's prompt cache, when the prefix did not extend."),
});
/** Body of `assistant/attempt`. */
export type AttemptBody = z.infer<typeof AttemptBodySchema>;

/** Body of `llm/retry`: a retry was decided. */
export const RetryBodySchema = z.object({
  failedAttempt: positive.describe('The attempt that failed.'),
  nextAttempt: positive.describe('The attempt that will follow.'),
  delayMs: z.number().nonnegative().describe('The wait before it, in ms.'),
  reason: z.string().describe("Why (the policy's or the compaction's reason)."),
  code: z.string().optional().describe("The failure's code."),
  compactionId: positive.optional().describe('The compaction that made room (overflow path).'),
});
/** Body of `llm/retry`. */
export type RetryBody = z.infer<typeof RetryBodySchema>;

/** Body of `llm/retry-started`: the next attempt begins. */
export const RetryStartedBodySchema = z.object({
  attempt: positive.describe('The attempt now starting.'),
  afterCrash: z
    .boolean()
    .optional()
    .describe('True when the previous attempt died with the process.'),
});
/** Body of `llm/retry-started`. */
export type RetryStartedBody = z.infer<typeof RetryStartedBodySchema>;

/** Which inbox queue. */
export const InboxQueueSchema = z.literal(['next-turn', 'next-step']);
/** Which inbox queue. */
export type InboxQueue = z.infer<typeof InboxQueueSchema>;

/** One queued input. */
export const InboxItemSchema = z.object({
  id: z.string().describe('A random id, carried into the `user/message` that consumes it.'),
  content: z.string().describe('The input text.'),
});
/** One queued input. */
export type InboxItem = z.infer<typeof InboxItemSchema>;

/** Body of `agent/inbox/spliced`: `queue.splice(start, deleteCount, ...insert)`. */
export const InboxSplicedBodySchema = z.object({
  queue: InboxQueueSchema.describe('The queue changed.'),
  start: count.describe('Index of the first item removed or inserted.'),
  deleteCount: count.describe('Items removed.'),
  insert: z.array(InboxItemSchema).describe('Items inserted.'),
  reason: z.string().describe('Why: `enqueue`, `consume`, `clear`.'),
});
/** Body of `agent/inbox/spliced`. */
export type InboxSplicedBody = z.infer<typeof InboxSplicedBodySchema>;

/** Why a turn ended. */
export const TurnEndReasonSchema = z.literal(TURN_END_REASONS);
/** Why a turn ended. */
export type TurnEndReason = z.infer<typeof TurnEndReasonSchema>;

/** The error a turn ended with. */
export const TurnErrorSchema = z.object({
  code: z.string().describe('The stable error code.'),
  message: z.string().describe('The message, which says what to do.'),
});
/** The error a turn ended with. */
export type TurnError = z.infer<typeof TurnErrorSchema>;

/** Body of `turn/end`. */
export const TurnEndBodySchema = z.object({
  reason: TurnEndReasonSchema.describe('Why the turn ended.'),
  // Optional: a harness that uses the session log alone may not count steps (its guide example
  // ends a turn with `{ reason: 'completed' }`); the agent loop always records it.
  steps: count.optional().describe('Steps run in the turn (by the process that ended it).'),
  usage: UsageSchema.optional().describe('Tokens used by those steps.'),
  error: TurnErrorSchema.optional().describe('The error, for `error` and `aborted`.'),
  deniedTools: z.array(z.string()).optional().describe('Tools denied during the turn, in order.'),
});
/** Body of `turn/end`. */
export type TurnEndBody = z.infer<typeof TurnEndBodySchema>;

/** Body of `agent/aborted`. */
export const AbortedBodySchema = z.object({
  phase: z
    .literal(['stream', 'tools', 'retry-wait', 'compaction', 'pre-step'])
    .describe('Where the signal caught the turn.'),
  reason: JsonValueSchema.optional().describe('The abort reason, as text.'),
});
/** Body of `agent/aborted`. */
export type AbortedBody = z.infer<typeof AbortedBodySchema>;

/** Body of `turn/start`. */
export const TurnStartBodySchema = z.object({
  inboxId: z.string().optional().describe('The inbox item the turn consumes, if any.'),
});
/** Body of `turn/start`. */
export type TurnStartBody = z.infer<typeof TurnStartBodySchema>;

/** Body of `step/start` (empty today; the event's `turn` and `step` say which step). */
export const StepStartBodySchema = z.object({});
/** Body of `step/start`. */
export type StepStartBody = z.infer<typeof StepStartBodySchema>;

/** Body of `step/end`. */
export const StepEndBodySchema = z.object({
  finishReason: z.string().optional().describe("The step's finish reason."),
  toolCalls: count.optional().describe('Tool calls the step made.'),
  interrupted: z.boolean().optional().describe('True when the process stopped during the tools.'),
});
/** Body of `step/end`. */
export type StepEndBody = z.infer<typeof StepEndBodySchema>;

/** Body of `tool/output`: the whole output of a tool whose result was cut to fit the context window. */
export const ToolOutputBodySchema = z.object({
  toolCallId: z.string().describe('The call whose result was cut.'),
  toolName: z.string().describe('The tool.'),
  content: z.string().describe("The whole output; the result's `meta.originalSeq` points here."),
});
/** Body of `tool/output`. */
export type ToolOutputBody = z.infer<typeof ToolOutputBodySchema>;

/** Body of `tool/progress`: a progress note of a running tool. */
export const ToolProgressBodySchema = z.object({
  toolCallId: z.string().describe('The running call.'),
  toolName: z.string().optional().describe('The tool.'),
  message: z.string().optional().describe('The progress note.'),
});
/** Body of `tool/progress`. */
export type ToolProgressBody = z.infer<typeof ToolProgressBodySchema>;

/** Body of `session/forked`: this session continues another one. */
export const SessionForkedBodySchema = z.object({
  sessionId: z.string().optional().describe('The session forked from (or to).'),
  atSeq: count.optional().describe('The seq the fork was taken at.'),
});
/** Body of `session/forked`. */
export type SessionForkedBody = z.infer<typeof SessionForkedBodySchema>;
