import { z } from 'zod';
import { ImagePartSchema } from './images.js';

/** Plain text, in a user or assistant message. */
export const TextPartSchema = z.object({ type: z.literal('text'), text: z.string() });
/** Plain text, in a user or assistant message. */
export type TextPart = z.infer<typeof TextPartSchema>;

/**
 * Model reasoning. `signature` (Anthropic) and `redactedData` (Anthropic redacted thinking)
 * must be sent back byte for byte; DeepSeek's `reasoning_content` is `text` alone.
 */
export const ReasoningPartSchema = z.object({
  type: z.literal('reasoning'),
  text: z.string(),
  signature: z.string().optional(),
  redactedData: z.string().optional(),
});
/** Model reasoning; see {@link ReasoningPartSchema}. */
export type ReasoningPart = z.infer<typeof ReasoningPartSchema>;

/**
 * A tool call proposed by the model. `arguments` is the raw JSON text exactly as the model
 * produced it (it may be invalid JSON: the runtime answers that with a tool error). `id` is
 * unique in the session; when Spine had to assign it (the provider's id was missing, empty or
 * already used), `providerId` keeps what the provider sent (`''` for none).
 */
export const ToolCallPartSchema = z.object({
  type: z.literal('tool-call'),
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
  providerId: z.string().optional(),
});
/** A tool call proposed by the model; see {@link ToolCallPartSchema}. */
export type ToolCallPart = z.infer<typeof ToolCallPartSchema>;

/** Any part of an assistant message. */
export const AssistantPartSchema = z.discriminatedUnion('type', [
  TextPartSchema,
  ReasoningPartSchema,
  ToolCallPartSchema,
]);
/** Any part of an assistant message. */
export type AssistantPart = z.infer<typeof AssistantPartSchema>;

/**
 * A user-role message. `source` says where it came from: the person (`user`), the runtime
 * context projection, a compaction checkpoint, a recall, or a plugin's own name.
 */
export const UserMessageSchema = z.object({
  role: z.literal('user'),
  content: z.string(),
  source: z.string().optional(),
  /** Images sent after the text, in order (references; the bytes are in the blob store). */
  images: z.array(ImagePartSchema).optional(),
});
/** A user-role message; see {@link UserMessageSchema}. */
export type UserMessage = z.infer<typeof UserMessageSchema>;

/** An assistant message: text, reasoning and tool calls in the order the model produced them. */
export const AssistantMessageSchema = z.object({
  role: z.literal('assistant'),
  content: z.array(AssistantPartSchema),
});
/** An assistant message; see {@link AssistantMessageSchema}. */
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;

/** The result of one tool call, rendered exactly as the model sees it. */
export const ToolResultMessageSchema = z.object({
  role: z.literal('tool'),
  toolCallId: z.string(),
  toolName: z.string(),
  content: z.string(),
  isError: z.boolean().optional(),
  /** Images the tool returned after its text (references; the bytes are in the blob store). */
  images: z.array(ImagePartSchema).optional(),
});
/** The result of one tool call; see {@link ToolResultMessageSchema}. */
export type ToolResultMessage = z.infer<typeof ToolResultMessageSchema>;

/** A provider-neutral message, as derived from the session surface. */
export const MessageSchema = z.discriminatedUnion('role', [
  UserMessageSchema,
  AssistantMessageSchema,
  ToolResultMessageSchema,
]);
/** A provider-neutral message. */
export type Message = z.infer<typeof MessageSchema>;

export { textOf, toolCallsOf } from './message-parts.js';
