import { z } from 'zod';
/** The current version of the persisted event format, carried by `session/header`. */
export declare const FORMAT_VERSION = 1;
/** A change to the surface (the seqs that take part in model history). */
export declare const SurfaceOpSchema: z.ZodDiscriminatedUnion<
  [
    z.ZodObject<
      {
        op: z.ZodLiteral<'append'>;
      },
      z.core.$strip
    >,
    z.ZodObject<
      {
        op: z.ZodLiteral<'replace'>;
        start: z.ZodNumber;
        end: z.ZodNumber;
      },
      z.core.$strip
    >,
  ],
  'op'
>;
/** `append` adds the event to the surface; `replace` swaps the region `start..end` (seqs, inclusive) for it. */
export type SurfaceOp = z.infer<typeof SurfaceOpSchema>;
/** One event of the append-only session log: one JSON object, one line in the JSONL store. */
export declare const SessionEventSchema: z.ZodObject<
  {
    seq: z.ZodNumber;
    type: z.ZodString;
    at: z.ZodString;
    turn: z.ZodOptional<z.ZodNumber>;
    step: z.ZodOptional<z.ZodNumber>;
    body: z.ZodType<
      import('./json.js').JsonValue,
      unknown,
      z.core.$ZodTypeInternals<import('./json.js').JsonValue, unknown>
    >;
    surfaceOp: z.ZodOptional<
      z.ZodDiscriminatedUnion<
        [
          z.ZodObject<
            {
              op: z.ZodLiteral<'append'>;
            },
            z.core.$strip
          >,
          z.ZodObject<
            {
              op: z.ZodLiteral<'replace'>;
              start: z.ZodNumber;
              end: z.ZodNumber;
            },
            z.core.$strip
          >,
        ],
        'op'
      >
    >;
    sourceEventSeqs: z.ZodOptional<z.ZodArray<z.ZodNumber>>;
  },
  z.core.$strip
>;
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
export declare const SessionHeaderBodySchema: z.ZodObject<
  {
    formatVersion: z.ZodNumber;
    sessionId: z.ZodString;
    createdAt: z.ZodString;
    cwd: z.ZodOptional<z.ZodString>;
    title: z.ZodOptional<z.ZodString>;
    model: z.ZodOptional<z.ZodString>;
    parent: z.ZodOptional<
      z.ZodObject<
        {
          sessionId: z.ZodString;
          atSeq: z.ZodNumber;
        },
        z.core.$strip
      >
    >;
    meta: z.ZodOptional<
      z.ZodRecord<
        z.ZodString,
        z.ZodType<
          import('./json.js').JsonValue,
          unknown,
          z.core.$ZodTypeInternals<import('./json.js').JsonValue, unknown>
        >
      >
    >;
  },
  z.core.$strip
>;
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
export declare const UserMessageBodySchema: z.ZodObject<
  {
    content: z.ZodString;
    source: z.ZodString;
    pinned: z.ZodOptional<z.ZodBoolean>;
    meta: z.ZodOptional<
      z.ZodRecord<
        z.ZodString,
        z.ZodType<
          import('./json.js').JsonValue,
          unknown,
          z.core.$ZodTypeInternals<import('./json.js').JsonValue, unknown>
        >
      >
    >;
  },
  z.core.$strip
>;
/** Body of `user/message`. */
export type UserMessageBody = z.infer<typeof UserMessageBodySchema> & {
  source: UserMessageSource;
};
/** Body of `assistant/message`: the final message of one successful attempt. */
export declare const AssistantMessageBodySchema: z.ZodObject<
  {
    content: z.ZodArray<
      z.ZodDiscriminatedUnion<
        [
          z.ZodObject<
            {
              type: z.ZodLiteral<'text'>;
              text: z.ZodString;
            },
            z.core.$strip
          >,
          z.ZodObject<
            {
              type: z.ZodLiteral<'reasoning'>;
              text: z.ZodString;
              signature: z.ZodOptional<z.ZodString>;
              redactedData: z.ZodOptional<z.ZodString>;
            },
            z.core.$strip
          >,
          z.ZodObject<
            {
              type: z.ZodLiteral<'tool-call'>;
              id: z.ZodString;
              name: z.ZodString;
              arguments: z.ZodString;
            },
            z.core.$strip
          >,
        ],
        'type'
      >
    >;
    finishReason: z.ZodString;
    rawFinishReason: z.ZodOptional<z.ZodString>;
    usage: z.ZodOptional<
      z.ZodObject<
        {
          inputTokens: z.ZodNumber;
          cacheReadTokens: z.ZodNumber;
          cacheWriteTokens: z.ZodNumber;
          outputTokens: z.ZodNumber;
          reasoningTokens: z.ZodOptional<z.ZodNumber>;
          costUsd: z.ZodOptional<z.ZodNumber>;
        },
        z.core.$strip
      >
    >;
    model: z.ZodOptional<z.ZodString>;
    provider: z.ZodOptional<z.ZodString>;
    attempt: z.ZodOptional<z.ZodNumber>;
  },
  z.core.$strip
>;
/** Body of `assistant/message`. */
export type AssistantMessageBody = z.infer<typeof AssistantMessageBodySchema>;
/** Metadata every tool result carries into the log. */
export declare const ToolResultMetaSchema: z.ZodObject<
  {
    durationMs: z.ZodOptional<z.ZodNumber>;
    truncated: z.ZodOptional<z.ZodBoolean>;
    originalLength: z.ZodOptional<z.ZodNumber>;
    contentType: z.ZodOptional<z.ZodString>;
    sourcePath: z.ZodOptional<z.ZodString>;
    sourceUrl: z.ZodOptional<z.ZodString>;
    provider: z.ZodOptional<z.ZodString>;
    params: z.ZodOptional<
      z.ZodType<
        import('./json.js').JsonValue,
        unknown,
        z.core.$ZodTypeInternals<import('./json.js').JsonValue, unknown>
      >
    >;
    sandbox: z.ZodOptional<z.ZodString>;
    exitCode: z.ZodOptional<z.ZodNumber>;
  },
  z.core.$catchall<
    z.ZodType<
      import('./json.js').JsonValue,
      unknown,
      z.core.$ZodTypeInternals<import('./json.js').JsonValue, unknown>
    >
  >
>;
/** Metadata every tool result carries into the log. */
export type ToolResultMeta = z.infer<typeof ToolResultMetaSchema>;
/** Body of `tool/result`: the content exactly as the model sees it, plus metadata. */
export declare const ToolResultBodySchema: z.ZodObject<
  {
    toolCallId: z.ZodString;
    toolName: z.ZodString;
    content: z.ZodString;
    isError: z.ZodBoolean;
    outcome: z.ZodOptional<
      z.ZodEnum<{
        unknown: 'unknown';
        error: 'error';
        ok: 'ok';
        denied: 'denied';
        invalid: 'invalid';
        'not-found': 'not-found';
        timeout: 'timeout';
        aborted: 'aborted';
        'not-started': 'not-started';
      }>
    >;
    meta: z.ZodOptional<
      z.ZodObject<
        {
          durationMs: z.ZodOptional<z.ZodNumber>;
          truncated: z.ZodOptional<z.ZodBoolean>;
          originalLength: z.ZodOptional<z.ZodNumber>;
          contentType: z.ZodOptional<z.ZodString>;
          sourcePath: z.ZodOptional<z.ZodString>;
          sourceUrl: z.ZodOptional<z.ZodString>;
          provider: z.ZodOptional<z.ZodString>;
          params: z.ZodOptional<
            z.ZodType<
              import('./json.js').JsonValue,
              unknown,
              z.core.$ZodTypeInternals<import('./json.js').JsonValue, unknown>
            >
          >;
          sandbox: z.ZodOptional<z.ZodString>;
          exitCode: z.ZodOptional<z.ZodNumber>;
        },
        z.core.$catchall<
          z.ZodType<
            import('./json.js').JsonValue,
            unknown,
            z.core.$ZodTypeInternals<import('./json.js').JsonValue, unknown>
          >
        >
      >
    >;
  },
  z.core.$strip
>;
/** Body of `tool/result`. */
export type ToolResultBody = z.infer<typeof ToolResultBodySchema>;
/** Body of `tool/started`, written before a tool executes. */
export declare const ToolStartedBodySchema: z.ZodObject<
  {
    toolCallId: z.ZodString;
    toolName: z.ZodString;
    arguments: z.ZodString;
  },
  z.core.$strip
>;
/** Body of `tool/started`. */
export type ToolStartedBody = z.infer<typeof ToolStartedBodySchema>;
/** Body of `tool/approval`: one approval decision, as data. */
export declare const ToolApprovalBodySchema: z.ZodObject<
  {
    toolCallId: z.ZodString;
    toolName: z.ZodString;
    decision: z.ZodEnum<{
      allow: 'allow';
      deny: 'deny';
    }>;
    by: z.ZodString;
    reason: z.ZodOptional<z.ZodString>;
    scope: z.ZodOptional<
      z.ZodEnum<{
        once: 'once';
        session: 'session';
        rule: 'rule';
        policy: 'policy';
      }>
    >;
    escalation: z.ZodOptional<
      z.ZodRecord<
        z.ZodString,
        z.ZodType<
          import('./json.js').JsonValue,
          unknown,
          z.core.$ZodTypeInternals<import('./json.js').JsonValue, unknown>
        >
      >
    >;
  },
  z.core.$strip
>;
/** Body of `tool/approval`. */
export type ToolApprovalBody = z.infer<typeof ToolApprovalBodySchema>;
/** Body of `session/recovered`. */
export declare const SessionRecoveredBodySchema: z.ZodObject<
  {
    reason: z.ZodString;
    truncatedBytes: z.ZodOptional<z.ZodNumber>;
    details: z.ZodOptional<
      z.ZodRecord<
        z.ZodString,
        z.ZodType<
          import('./json.js').JsonValue,
          unknown,
          z.core.$ZodTypeInternals<import('./json.js').JsonValue, unknown>
        >
      >
    >;
  },
  z.core.$strip
>;
/** Body of `session/recovered`. */
export type SessionRecoveredBody = z.infer<typeof SessionRecoveredBodySchema>;
/** How an event type takes part in the surface. */
export type EventSurfaceRole = 'none' | 'surface';
/** Built-in event types, their surface role and (where fixed) their body schema. */
export declare const BUILTIN_EVENT_TYPES: Readonly<
  Record<
    string,
    {
      surface: EventSurfaceRole;
      body?: z.ZodType;
    }
  >
>;
/** Typed bodies of the built-in event types that have a fixed schema. */
export interface EventBodies {
  'session/header': SessionHeaderBody;
  'session/recovered': SessionRecoveredBody;
  'user/message': UserMessageBody;
  'assistant/message': AssistantMessageBody;
  'tool/result': ToolResultBody;
  'tool/started': ToolStartedBody;
  'tool/approval': ToolApprovalBody;
}
//# sourceMappingURL=events.d.ts.map
