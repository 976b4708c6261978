import { z } from 'zod';
import { JsonValueSchema } from './json.js';
import { AssistantPartSchema } from './messages.js';
import { UsageSchema } from './usage.js';
/** The current version of the persisted event format, carried by `session/header`. */
export const FORMAT_VERSION = 1;
/** A change to the surface (the seqs that take part in model history). */
export const SurfaceOpSchema = z.discriminatedUnion('op', [
    z.object({ op: z.literal('append') }),
    z.object({
        op: z.literal('replace'),
        start: z.number().int().positive(),
        end: z.number().int().positive(),
    }),
]);
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
/** Body of `session/header`, always the first event. */
export const SessionHeaderBodySchema = z.object({
    formatVersion: z.number().int().positive(),
    sessionId: z.string().min(1),
    createdAt: z.string(),
    cwd: z.string().optional(),
    title: z.string().optional(),
    model: z.string().optional(),
    parent: z.object({ sessionId: z.string(), atSeq: z.number().int().nonnegative() }).optional(),
    meta: z.record(z.string(), JsonValueSchema).optional(),
});
/** Body of `user/message`. */
export const UserMessageBodySchema = z.object({
    content: z.string(),
    source: z.string(),
    pinned: z.boolean().optional(),
    meta: z.record(z.string(), JsonValueSchema).optional(),
});
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
/** Body of `tool/result`: the content exactly as the model sees it, plus metadata. */
export const ToolResultBodySchema = z.object({
    toolCallId: z.string(),
    toolName: z.string(),
    content: z.string(),
    isError: z.boolean(),
    outcome: z
        .enum([
        'ok',
        'error',
        'denied',
        'invalid',
        'not-found',
        'timeout',
        'aborted',
        'unknown',
        'not-started',
    ])
        .optional(),
    meta: ToolResultMetaSchema.optional(),
});
/** Body of `tool/started`, written before a tool executes. */
export const ToolStartedBodySchema = z.object({
    toolCallId: z.string(),
    toolName: z.string(),
    arguments: z.string(),
});
/** Body of `tool/approval`: one approval decision, as data. */
export const ToolApprovalBodySchema = z.object({
    toolCallId: z.string(),
    toolName: z.string(),
    decision: z.enum(['allow', 'deny']),
    by: z.string(),
    reason: z.string().optional(),
    scope: z.enum(['once', 'session', 'rule', 'policy']).optional(),
    escalation: z.record(z.string(), JsonValueSchema).optional(),
});
/** Body of `session/recovered`. */
export const SessionRecoveredBodySchema = z.object({
    reason: z.string(),
    truncatedBytes: z.number().int().nonnegative().optional(),
    details: z.record(z.string(), JsonValueSchema).optional(),
});
/** Built-in event types, their surface role and (where fixed) their body schema. */
export const BUILTIN_EVENT_TYPES = {
    'session/header': { surface: 'none', body: SessionHeaderBodySchema },
    'session/recovered': { surface: 'none', body: SessionRecoveredBodySchema },
    'session/forked': { surface: 'none' },
    'turn/start': { surface: 'none' },
    'turn/end': { surface: 'none' },
    'step/start': { surface: 'none' },
    'step/end': { surface: 'none' },
    'user/message': { surface: 'surface', body: UserMessageBodySchema },
    'assistant/message': { surface: 'surface', body: AssistantMessageBodySchema },
    'assistant/attempt': { surface: 'none' },
    'llm/retry': { surface: 'none' },
    'llm/retry-started': { surface: 'none' },
    'request/header': { surface: 'none' },
    'request/context': { surface: 'none' },
    'prompt/system': { surface: 'none' },
    'tools/defined': { surface: 'none' },
    'agent/inbox/spliced': { surface: 'none' },
    'agent/aborted': { surface: 'none' },
    'tool/approval': { surface: 'none', body: ToolApprovalBodySchema },
    'tool/started': { surface: 'none', body: ToolStartedBodySchema },
    'tool/progress': { surface: 'none' },
    'tool/result': { surface: 'surface', body: ToolResultBodySchema },
    'compaction/start': { surface: 'none' },
    'compaction/summary': { surface: 'none' },
    'compaction/end': { surface: 'none' },
    'compaction/failed': { surface: 'none' },
    'compaction/candidate': { surface: 'none' },
    'compaction/discarded': { surface: 'none' },
};
//# sourceMappingURL=events.js.map