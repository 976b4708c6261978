import type { ImageBytes, JsonValue, Message, ModelRequest, ToolSpec } from '@spine/protocol';
import type { OpenAIDialect } from '../types.js';
import { FragmentCache } from './fragment-cache.js';
import { openAIImagePart, withToolImagesAfterRun } from './image-encode.js';
import type { LeasedBytes } from './joined-bytes.js';

/** A user message's content: its text alone, or (with images) text and image parts. */
function userContent(
  message: Extract<Message, { role: 'user' }>,
  images: ImageBytes | undefined,
): string {
  if (!message.images || message.images.length === 0) return JSON.stringify(message.content);
  const parts =
    message.content === '' ? [] : [`{"type":"text","text":${JSON.stringify(message.content)}}`];
  for (const image of message.images) parts.push(openAIImagePart(images, image));
  return `[${parts.join(',')}]`;
}

function encodeMessage(
  message: Message,
  withReasoning: boolean,
  images: ImageBytes | undefined,
): string {
  switch (message.role) {
    case 'user':
      return `{"role":"user","content":${userContent(message, images)}}`;
    case 'tool':
      return `{"role":"tool","tool_call_id":${JSON.stringify(message.toolCallId)},"content":${JSON.stringify(message.content)}}`;
    default: {
      let text = '';
      let reasoning = '';
      const calls: string[] = [];
      for (const part of message.content) {
        if (part.type === 'text') text += part.text;
        else if (part.type === 'reasoning') reasoning += part.text;
        else {
          calls.push(
            `{"id":${JSON.stringify(part.id)},"type":"function","function":{"name":${JSON.stringify(part.name)},"arguments":${JSON.stringify(part.arguments)}}}`,
          );
        }
      }
      // DeepSeek's safe policy: reasoning goes back only with tool calls.
      const content = calls.length > 0 && text === '' ? 'null' : JSON.stringify(text);
      let out = `{"role":"assistant","content":${content}`;
      if (withReasoning && calls.length > 0)
        out += `,"reasoning_content":${JSON.stringify(reasoning)}`;
      if (calls.length > 0) out += `,"tool_calls":[${calls.join(',')}]`;
      return `${out}}`;
    }
  }
}

function encodeTool(tool: ToolSpec): string {
  return `{"type":"function","function":{"name":${JSON.stringify(tool.name)},"description":${JSON.stringify(tool.description)},"parameters":${JSON.stringify(tool.parameters)}}}`;
}

/** The bytes around the history of the last request, and the request fields they depend on. */
interface EncodedFrame {
  model: string;
  system: string;
  tools: readonly ToolSpec[];
  toolChoice: ModelRequest['toolChoice'];
  maxOutputTokens: number | undefined;
  temperature: number | undefined;
  reasoning: ModelRequest['reasoning'];
  providerOptions: ModelRequest['providerOptions'];
  stream: boolean;
  /** The separator after the system message depends on there being messages. */
  hasMessages: boolean;
  cache: FragmentCache<Message>;
  before: Buffer;
  after: Buffer;
}

/**
 * True when `request` encodes to the same frame: plain fields by value, the tool list and
 * provider options by identity (requests are immutable once built, as the message caches
 * already assume), reasoning by value.
 */
function sameFrame(frame: EncodedFrame, request: ModelRequest, stream: boolean): boolean {
  const a = frame.reasoning;
  const b = request.reasoning;
  return (
    frame.model === request.model &&
    frame.system === request.system &&
    frame.tools === request.tools &&
    frame.toolChoice === request.toolChoice &&
    frame.maxOutputTokens === request.maxOutputTokens &&
    frame.temperature === request.temperature &&
    frame.providerOptions === request.providerOptions &&
    frame.stream === stream &&
    frame.hasMessages === request.messages.length > 0 &&
    (a === undefined
      ? b === undefined
      : b !== undefined &&
        a.enabled === b.enabled &&
        a.effort === b.effort &&
        a.budgetTokens === b.budgetTokens)
  );
}

/**
 * Encodes {@link ModelRequest}s into OpenAI chat-completions bodies, deterministically, with
 * every message, the tool list and the system prompt serialised once and reused by identity.
 */
export class OpenAIRequestEncoder {
  /** The blob store of the request being encoded (image bytes are content-addressed). */
  private images: ImageBytes | undefined;
  private readonly plain = new FragmentCache<Message>((message) =>
    encodeMessage(message, false, this.images),
  );
  private readonly withReasoning = new FragmentCache<Message>((message) =>
    encodeMessage(message, true, this.images),
  );
  private readonly tools = new FragmentCache<ToolSpec>(encodeTool);
  private readonly toolLists = new WeakMap<readonly ToolSpec[], string>();
  private lastSystem: string | undefined;
  private lastSystemJson = '';
  private lastFrame: EncodedFrame | undefined;

  constructor(private readonly dialect: OpenAIDialect) {}

  /** The exact body text for `request` (`stream` true unless told otherwise). */
  encode(request: ModelRequest, stream = true): string {
    const { cache, before, after } = this.frame(request, stream);
    this.images = request.images;
    return `${before}${cache.join(withToolImagesAfterRun(request.messages))}${after}`;
  }

  /**
   * The UTF-8 bytes of {@link OpenAIRequestEncoder.encode}, byte for byte, as three chunks:
   * the text before the history, the cached history bytes (a view of an append-only buffer
   * that is never overwritten, so the chunks stay valid while later requests are encoded) and
   * the text after it. What `stream()` sends: nothing proportional to the history is copied.
   */
  encodeChunks(request: ModelRequest, stream = true): Buffer[] {
    const frame = this.frameFor(request, stream);
    this.images = request.images;
    // The frame buffers are only ever read, so consecutive requests share them.
    return [
      frame.before,
      frame.cache.joinBytes(withToolImagesAfterRun(request.messages)),
      frame.after,
    ];
  }

  /**
   * The bytes of {@link OpenAIRequestEncoder.encode} as one buffer lent until `release()`,
   * written around the cached history without copying it (see `JoinedBytes.frame`).
   */
  encodeBody(request: ModelRequest, stream = true): LeasedBytes {
    const frame = this.frameFor(request, stream);
    this.images = request.images;
    return frame.cache.frameBytes(
      withToolImagesAfterRun(request.messages),
      frame.before,
      frame.after,
    );
  }

  /** The encoded frame of `request`, reused while the fields it depends on are unchanged. */
  private frameFor(request: ModelRequest, stream: boolean): EncodedFrame {
    let frame = this.lastFrame;
    if (!frame || !sameFrame(frame, request, stream)) {
      const { cache, before, after } = this.frame(request, stream);
      frame = {
        model: request.model,
        system: request.system,
        tools: request.tools,
        toolChoice: request.toolChoice,
        maxOutputTokens: request.maxOutputTokens,
        temperature: request.temperature,
        reasoning: request.reasoning && { ...request.reasoning },
        providerOptions: request.providerOptions,
        stream,
        hasMessages: request.messages.length > 0,
        cache,
        before: Buffer.from(before),
        after: Buffer.from(after),
      };
      this.lastFrame = frame;
    }
    return frame;
  }

  /** The message cache for `request` and the body text around its joined history. */
  private frame(
    request: ModelRequest,
    stream: boolean,
  ): { cache: FragmentCache<Message>; before: string; after: string } {
    const thinkingOff = request.reasoning?.enabled === false;
    const cache =
      this.dialect.reasoningHistory === 'tool-calls' && !thinkingOff
        ? this.withReasoning
        : this.plain;
    if (request.system !== this.lastSystem) {
      this.lastSystem = request.system;
      this.lastSystemJson = `{"role":"system","content":${JSON.stringify(request.system)}}`;
    }
    const system = request.system === '' ? '' : this.lastSystemJson;
    const separator = system !== '' && request.messages.length > 0 ? ',' : '';
    const before = `{"model":${JSON.stringify(request.model)},"messages":[${system}${separator}`;
    let after = ']';
    if (request.tools.length > 0) after += `,"tools":${this.toolList(request.tools)}`;
    const restText = JSON.stringify(this.rest(request, stream));
    after += restText === '{}' ? '}' : `,${restText.slice(1)}`;
    return { cache, before, after };
  }

  private toolList(tools: readonly ToolSpec[]): string {
    let text = this.toolLists.get(tools);
    if (text === undefined) {
      text = `[${tools.map((tool) => this.tools.fragment(tool)).join(',')}]`;
      this.toolLists.set(tools, text);
    }
    return text;
  }

  private rest(request: ModelRequest, stream: boolean): Record<string, JsonValue> {
    const rest: Record<string, JsonValue> = {};
    if (request.toolChoice !== undefined && request.tools.length > 0) {
      rest.tool_choice =
        typeof request.toolChoice === 'string'
          ? request.toolChoice
          : { type: 'function', function: { name: request.toolChoice.name } };
    }
    if (request.maxOutputTokens !== undefined)
      rest[this.dialect.maxTokensField] = request.maxOutputTokens;
    if (request.temperature !== undefined) rest.temperature = request.temperature;
    const reasoning = request.reasoning;
    if (reasoning !== undefined) {
      if (this.dialect.reasoningStyle === 'deepseek') {
        rest.thinking = { type: reasoning.enabled ? 'enabled' : 'disabled' };
        if (reasoning.enabled && reasoning.effort !== undefined) {
          rest.reasoning_effort = reasoning.effort === 'max' ? 'max' : 'high';
        }
      } else if (reasoning.enabled && reasoning.effort !== undefined) {
        rest.reasoning_effort = reasoning.effort;
      }
    }
    rest.stream = stream;
    if (stream && this.dialect.includeUsage) rest.stream_options = { include_usage: true };
    for (const [key, value] of Object.entries(request.providerOptions ?? {})) {
      if (key !== 'model' && key !== 'messages' && key !== 'tools') rest[key] = value;
    }
    return rest;
  }
}
