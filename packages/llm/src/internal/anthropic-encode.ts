import { hash } from 'node:crypto';
import type {
  AssistantMessage,
  ImageBytes,
  JsonValue,
  Message,
  ModelRequest,
  ToolSpec,
} from '@spine/protocol';
import { TurnEncoder, withBreakpoint } from './anthropic-turns.js';
import { anthropicImageBlock } from './image-encode.js';

const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * A tool call id as Anthropic accepts it (`^[a-zA-Z0-9_-]+$`). Ids from other providers
 * (`functions.read:0`, empty ones) are rewritten the same way every time, in the `tool_use` and
 * its `tool_result` alike: other characters become `_`, plus a short hash of the original so
 * that distinct ids stay distinct. The recorded messages keep the original id.
 */
export function anthropicToolId(id: string): string {
  if (TOOL_ID.test(id)) return id;
  return `${id.replace(/[^a-zA-Z0-9_-]/g, '_')}_${hash('sha256', id, 'hex').slice(0, 8)}`;
}

/** The thinking budget for an effort level, as a share of the output cap (at least 1,024). */
const EFFORT_SHARE = { low: 1 / 8, medium: 1 / 4, high: 1 / 2, max: 3 / 4 } as const;

function assistantBlocks(message: AssistantMessage): string[] {
  const blocks: string[] = [];
  for (const part of message.content) {
    if (part.type === 'text') {
      // Anthropic rejects empty text blocks.
      if (part.text !== '') blocks.push(`{"type":"text","text":${JSON.stringify(part.text)}}`);
    } else if (part.type === 'reasoning') {
      // Thinking goes back byte for byte with its signature; unsigned reasoning (from another
      // provider) cannot be verified by Anthropic and is dropped.
      if (part.redactedData !== undefined) {
        blocks.push(`{"type":"redacted_thinking","data":${JSON.stringify(part.redactedData)}}`);
      } else if (part.signature !== undefined) {
        blocks.push(
          `{"type":"thinking","thinking":${JSON.stringify(part.text)},"signature":${JSON.stringify(part.signature)}}`,
        );
      }
    } else {
      blocks.push(
        `{"type":"tool_use","id":${JSON.stringify(anthropicToolId(part.id))},"name":${JSON.stringify(part.name)},"input":${toolInput(part.arguments)}}`,
      );
    }
  }
  if (blocks.length === 0) blocks.push('{"type":"text","text":"(no content)"}');
  return blocks;
}

/** Anthropic needs an object; invalid JSON from the model is wrapped so the model sees what it sent. */
function toolInput(text: string): string {
  if (text.trim() === '') return '{}';
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return JSON.stringify(value);
  } catch {
    // fall through
  }
  return JSON.stringify({ invalid_arguments: text });
}

function blocksOf(message: Message, images: ImageBytes | undefined): string[] {
  switch (message.role) {
    case 'user': {
      const blocks: string[] = [];
      const attached = message.images ?? [];
      // Anthropic rejects empty text blocks; a message of images alone has none.
      if (message.content !== '' || attached.length === 0)
        blocks.push(`{"type":"text","text":${JSON.stringify(message.content)}}`);
      for (const image of attached) blocks.push(anthropicImageBlock(images, image));
      return blocks;
    }
    case 'tool': {
      const attached = message.images ?? [];
      let content = JSON.stringify(message.content);
      if (attached.length > 0) {
        const parts =
          message.content === ''
            ? []
            : [`{"type":"text","text":${JSON.stringify(message.content)}}`];
        for (const image of attached) parts.push(anthropicImageBlock(images, image));
        content = `[${parts.join(',')}]`;
      }
      return [
        `{"type":"tool_result","tool_use_id":${JSON.stringify(anthropicToolId(message.toolCallId))},"content":${content}${message.isError ? ',"is_error":true' : ''}}`,
      ];
    }
    default:
      return assistantBlocks(message);
  }
}

/**
 * Encodes {@link ModelRequest}s into Anthropic Messages bodies. Each message's blocks are
 * serialised once (cached by message identity); consecutive user and tool messages merge into
 * one user turn; with `cache` on, breakpoints go on the tools, the system prompt, the end of the
 * previous user turn and the end of the history (four, Anthropic's maximum), so every request
 * reads the prefix the previous one wrote.
 */
export class AnthropicRequestEncoder {
  private readonly blocks = new WeakMap<Message, string[]>();
  private readonly toolLists = new WeakMap<readonly ToolSpec[], string>();
  private readonly turns = new TurnEncoder((message) => this.blocksFor(message));
  /** The blob store of the request being encoded (image bytes are content-addressed). */
  private images: ImageBytes | undefined;

  constructor(
    private readonly options: { cache: boolean; defaultMaxTokens: (model: string) => number },
  ) {}

  /** The exact body text for `request`. */
  encode(request: ModelRequest, stream = true): string {
    const { before, after } = this.frame(request, stream);
    this.images = request.images;
    return `${before}${this.turns.encode(request.messages, this.options.cache)}${after}`;
  }

  /**
   * The UTF-8 bytes of {@link AnthropicRequestEncoder.encode}, byte for byte, as chunks: the
   * turns before the first cache breakpoint come from cached bytes (never overwritten, so the
   * chunks stay valid while later requests are encoded); the rest is encoded now.
   */
  encodeChunks(request: ModelRequest, stream = true): Buffer[] {
    const { before, after } = this.frame(request, stream);
    this.images = request.images;
    const turns = this.turns.encodeChunks(request.messages, this.options.cache);
    return [
      Buffer.from(`${before}${turns.before}`),
      turns.cached,
      ...turns.after,
      Buffer.from(after),
    ];
  }

  /** The body text before and after the `messages` array. */
  private frame(request: ModelRequest, stream: boolean): { before: string; after: string } {
    const maxTokens = request.maxOutputTokens ?? this.options.defaultMaxTokens(request.model);
    let out = `{"model":${JSON.stringify(request.model)},"max_tokens":${maxTokens}`;
    if (request.system !== '') {
      const block = `{"type":"text","text":${JSON.stringify(request.system)}}`;
      out += `,"system":[${this.options.cache ? withBreakpoint(block) : block}]`;
    }
    if (request.tools.length > 0) out += `,"tools":${this.toolList(request.tools)}`;
    const before = `${out},"messages":`;
    const rest: Record<string, JsonValue> = {};
    if (request.toolChoice !== undefined && request.tools.length > 0) {
      const choice = request.toolChoice;
      rest.tool_choice =
        typeof choice === 'object'
          ? { type: 'tool', name: choice.name }
          : { type: choice === 'required' ? 'any' : choice };
    }
    const thinking = request.reasoning?.enabled === true && this.thinkingAllowed(request.messages);
    if (thinking) {
      const share = EFFORT_SHARE[request.reasoning?.effort ?? 'high'];
      const budget =
        request.reasoning?.budgetTokens ?? Math.max(1024, Math.floor(maxTokens * share));
      rest.thinking = { type: 'enabled', budget_tokens: budget };
    }
    if (request.temperature !== undefined && !thinking) rest.temperature = request.temperature;
    if (request.sessionId !== undefined) rest.metadata = { user_id: request.sessionId };
    rest.stream = stream;
    for (const [key, value] of Object.entries(request.providerOptions ?? {})) {
      if (key !== 'model' && key !== 'messages' && key !== 'tools' && key !== 'system')
        rest[key] = value;
    }
    const restText = JSON.stringify(rest);
    return { before, after: restText === '{}' ? '}' : `,${restText.slice(1)}` };
  }

  /**
   * Anthropic refuses thinking in a tool loop whose assistant turn does not open with a thinking
   * block (history from another provider, or from a request without thinking). While the
   * request continues such a turn (a tool result follows the last assistant message, with or
   * without user text after it), it is sent without thinking.
   */
  private thinkingAllowed(messages: readonly Message[]): boolean {
    let continues = false;
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i] as Message;
      if (message.role === 'tool') continues = true;
      if (message.role !== 'assistant') continue;
      if (!continues) return true;
      const first = this.blocksFor(message)[0] ?? '';
      return (
        first.startsWith('{"type":"thinking"') || first.startsWith('{"type":"redacted_thinking"')
      );
    }
    return true;
  }

  private toolList(tools: readonly ToolSpec[]): string {
    let text = this.toolLists.get(tools);
    if (text === undefined) {
      const encoded = tools.map(
        (tool) =>
          `{"name":${JSON.stringify(tool.name)},"description":${JSON.stringify(tool.description)},"input_schema":${JSON.stringify(tool.parameters)}}`,
      );
      const last = encoded.length - 1;
      if (this.options.cache) encoded[last] = withBreakpoint(encoded[last] as string);
      text = `[${encoded.join(',')}]`;
      this.toolLists.set(tools, text);
    }
    return text;
  }

  private blocksFor(message: Message): string[] {
    let blocks = this.blocks.get(message);
    if (blocks === undefined) {
      blocks = blocksOf(message, this.images);
      this.blocks.set(message, blocks);
    }
    return blocks;
  }
}
