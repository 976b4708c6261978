import { z } from 'zod';
/** Plain text, in a user or assistant message. */
export declare const TextPartSchema: z.ZodObject<
  {
    type: z.ZodLiteral<'text'>;
    text: z.ZodString;
  },
  z.core.$strip
>;
/** Plain text, in a user or assistant message. */
export type TextPart = z.infer<typeof TextPartSchema>;
/**
 * Model reasoning. `signature` (Anthropic) and `redactedData` (Anthropic redacted thinking)
 * must be sent back byte for byte; DeepSeek's `reasoning_content` is `text` alone.
 */
export declare const ReasoningPartSchema: z.ZodObject<
  {
    type: z.ZodLiteral<'reasoning'>;
    text: z.ZodString;
    signature: z.ZodOptional<z.ZodString>;
    redactedData: z.ZodOptional<z.ZodString>;
  },
  z.core.$strip
>;
/** Model reasoning; see {@link ReasoningPartSchema}. */
export type ReasoningPart = z.infer<typeof ReasoningPartSchema>;
/**
 * A tool call proposed by the model. `arguments` is the raw JSON text exactly as the model
 * produced it (it may be invalid JSON: the runtime answers that with a tool error).
 */
export declare const ToolCallPartSchema: z.ZodObject<
  {
    type: z.ZodLiteral<'tool-call'>;
    id: z.ZodString;
    name: z.ZodString;
    arguments: z.ZodString;
  },
  z.core.$strip
>;
/** A tool call proposed by the model; see {@link ToolCallPartSchema}. */
export type ToolCallPart = z.infer<typeof ToolCallPartSchema>;
/** Any part of an assistant message. */
export declare const AssistantPartSchema: z.ZodDiscriminatedUnion<
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
>;
/** Any part of an assistant message. */
export type AssistantPart = z.infer<typeof AssistantPartSchema>;
/**
 * A user-role message. `source` says where it came from: the person (`user`), the runtime
 * context projection, a compaction checkpoint, a recall, or a plugin's own name.
 */
export declare const UserMessageSchema: z.ZodObject<
  {
    role: z.ZodLiteral<'user'>;
    content: z.ZodString;
    source: z.ZodOptional<z.ZodString>;
  },
  z.core.$strip
>;
/** A user-role message; see {@link UserMessageSchema}. */
export type UserMessage = z.infer<typeof UserMessageSchema>;
/** An assistant message: text, reasoning and tool calls in the order the model produced them. */
export declare const AssistantMessageSchema: z.ZodObject<
  {
    role: z.ZodLiteral<'assistant'>;
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
  },
  z.core.$strip
>;
/** An assistant message; see {@link AssistantMessageSchema}. */
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;
/** The result of one tool call, rendered exactly as the model sees it. */
export declare const ToolResultMessageSchema: z.ZodObject<
  {
    role: z.ZodLiteral<'tool'>;
    toolCallId: z.ZodString;
    toolName: z.ZodString;
    content: z.ZodString;
    isError: z.ZodOptional<z.ZodBoolean>;
  },
  z.core.$strip
>;
/** The result of one tool call; see {@link ToolResultMessageSchema}. */
export type ToolResultMessage = z.infer<typeof ToolResultMessageSchema>;
/** A provider-neutral message, as derived from the session surface. */
export declare const MessageSchema: z.ZodDiscriminatedUnion<
  [
    z.ZodObject<
      {
        role: z.ZodLiteral<'user'>;
        content: z.ZodString;
        source: z.ZodOptional<z.ZodString>;
      },
      z.core.$strip
    >,
    z.ZodObject<
      {
        role: z.ZodLiteral<'assistant'>;
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
      },
      z.core.$strip
    >,
    z.ZodObject<
      {
        role: z.ZodLiteral<'tool'>;
        toolCallId: z.ZodString;
        toolName: z.ZodString;
        content: z.ZodString;
        isError: z.ZodOptional<z.ZodBoolean>;
      },
      z.core.$strip
    >,
  ],
  'role'
>;
/** A provider-neutral message. */
export type Message = z.infer<typeof MessageSchema>;
/** The tool calls of an assistant message, in order. */
export declare function toolCallsOf(message: AssistantMessage): ToolCallPart[];
/** The concatenated text parts of an assistant message. */
export declare function textOf(message: AssistantMessage): string;
//# sourceMappingURL=messages.d.ts.map
