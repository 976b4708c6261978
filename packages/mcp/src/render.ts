import {
  type ImagePart,
  type ImageService,
  type JsonValue,
  SpineError,
  type ToolOutput,
} from '@spine/protocol';
import { cutAtCodePoint } from './internal/text-cut.js';

/** Default cap on the characters of one rendered result. */
export const DEFAULT_MAX_RESULT_CHARS = 40_000;

/** Options of {@link renderToolResult}. */
export interface RenderToolResultOptions {
  /** The server's configured name (recorded in the metadata). */
  server: string;
  /** The server's own tool name (recorded in the metadata). */
  tool: string;
  /** Cap on the rendered characters; longer results are cut and say so. */
  maxChars?: number;
  /** Applied to the whole text before the cut (the manager replaces configured secret values). */
  redact?: (text: string) => string;
  /**
   * The session's image service, when its model accepts images: image blocks are then checked,
   * stored and passed to the model as images (otherwise each is a line naming type and size).
   */
  images?: ImageService;
}

type Block = Record<string, unknown>;

function isRecord(value: unknown): value is Block {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Bytes a base64 string decodes to, without decoding it. */
function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

function label(value: unknown, fallback: string): string {
  const out = text(value);
  return out === undefined || out === '' ? fallback : out.replace(/[\r\n]+/g, ' ');
}

function renderResource(resource: unknown): { text: string; size: number } {
  if (!isRecord(resource)) return { text: '[resource: malformed]', size: 0 };
  const uri = label(resource.uri, '(no uri)');
  const mime = label(resource.mimeType, 'unknown type');
  const body = text(resource.text);
  if (body !== undefined)
    return {
      text: `[resource ${uri} (${mime}), ${body.length} characters]\n${body}`,
      size: body.length,
    };
  const blob = text(resource.blob);
  const bytes = blob === undefined ? 0 : base64Bytes(blob);
  return {
    text: `[resource ${uri} (${mime}), ${bytes} bytes of binary data not shown]`,
    size: bytes,
  };
}

/** An image block passed through: stored by the service, or the refusal as a line. */
function attachImage(
  data: string,
  images: ImageService,
  what: string,
  attached: ImagePart[],
): { type: string; text: string; size: number } {
  try {
    const part = images.store(Buffer.from(data, 'base64'), what);
    attached.push(part);
    return {
      type: 'image',
      text: `[image (${part.mediaType}), ${part.size} bytes, ${part.width}×${part.height}, attached]`,
      size: part.size,
    };
  } catch (error) {
    if (!SpineError.isInstance(error) || error.code !== 'IMAGE_REFUSED') throw error;
    return { type: 'image', text: `[image not attached: ${error.message}]`, size: 0 };
  }
}

function renderBlock(
  block: unknown,
  attach?: (data: string) => { type: string; text: string; size: number },
): { type: string; text: string; size: number } {
  if (!isRecord(block)) return { type: 'malformed', text: '[malformed content block]', size: 0 };
  const type = label(block.type, 'unknown');
  if (type === 'image' && attach && typeof block.data === 'string') return attach(block.data);
  switch (type) {
    case 'text': {
      const body = text(block.text) ?? '';
      return { type, text: body, size: body.length };
    }
    case 'image':
    case 'audio': {
      const data = text(block.data);
      const bytes = data === undefined ? 0 : base64Bytes(data);
      const mime = label(block.mimeType, 'unknown type');
      return {
        type,
        text: `[${type} (${mime}), ${bytes} bytes, not shown to the model]`,
        size: bytes,
      };
    }
    case 'resource': {
      const rendered = renderResource(block.resource);
      return { type, ...rendered };
    }
    case 'resource_link': {
      const uri = label(block.uri, '(no uri)');
      const name = label(block.name, uri);
      const mime = text(block.mimeType);
      const description = text(block.description);
      let line = `[resource link: ${name} <${uri}>${mime ? ` (${mime})` : ''}]`;
      if (description) line += ` ${description.replace(/[\r\n]+/g, ' ')}`;
      return { type, text: line, size: 0 };
    }
    default:
      return { type, text: `[content of type ${JSON.stringify(type)} not shown]`, size: 0 };
  }
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isRecord(value))
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(',')}}`;
  const out = JSON.stringify(value);
  return out === undefined ? 'null' : out;
}

function sameJson(textBlock: string, structured: string): boolean {
  try {
    return canonical(JSON.parse(textBlock)) === structured;
  } catch {
    return false;
  }
}

/** Every string and number leaf of `value`, in order (at most `limit`). */
function leaves(value: unknown, out: string[], limit: number): void {
  if (out.length >= limit) return;
  if (typeof value === 'string') out.push(value);
  else if (typeof value === 'number') out.push(String(value));
  else if (Array.isArray(value)) for (const item of value) leaves(item, out, limit);
  else if (isRecord(value))
    for (const key of Object.keys(value).sort()) leaves(value[key], out, limit);
}

/**
 * True when the text blocks already carry the structured content: one of them is the same JSON,
 * or every string and number in it appears in the text (servers usually send both forms).
 */
function carried(structured: unknown, json: string, texts: readonly string[]): boolean {
  if (texts.some((textBlock) => sameJson(textBlock, json))) return true;
  const values: string[] = [];
  leaves(structured, values, 1_000);
  if (values.length === 0 || values.length >= 1_000) return false;
  const joined = texts.join('\n');
  return values.every((value) => joined.includes(value));
}

/**
 * Renders an MCP `tools/call` result into the text the model sees, deterministically: text blocks
 * as they are; images and audio as a line naming type and size; embedded resources with their URI
 * and text (binary ones by size); resource links as a line; `structuredContent` as JSON unless a
 * text block already carries the same JSON; anything else as a line naming its type. Blocks are
 * joined by a blank line, then cut at `maxChars` with a note (never inside a surrogate pair). `isError` makes an error result.
 * Never throws, whatever `result` holds.
 *
 * @example
 * ```ts
 * renderToolResult({ content: [{ type: 'text', text: 'hi' }] }, { server: 'everything', tool: 'echo' });
 * // { content: 'hi', isError: false, meta: { provider: 'mcp', server: 'everything', … } }
 * ```
 */
export function renderToolResult(result: unknown, options: RenderToolResultOptions): ToolOutput {
  const record = isRecord(result) ? result : {};
  const blocks = Array.isArray(record.content) ? record.content : [];
  const parts: string[] = [];
  const types: string[] = [];
  const sizes: number[] = [];
  const images: ImagePart[] = [];
  const service = options.images;
  const attach = service
    ? (data: string) =>
        attachImage(
          data,
          service,
          `image ${images.length + 1} of ${options.server}/${options.tool}`,
          images,
        )
    : undefined;
  for (const block of blocks) {
    const rendered = renderBlock(block, attach);
    parts.push(rendered.text);
    types.push(rendered.type);
    sizes.push(rendered.size);
  }
  const structured = record.structuredContent;
  const hasStructured = structured !== undefined && structured !== null;
  if (hasStructured) {
    const json = canonical(structured);
    const texts = blocks
      .filter((block) => isRecord(block) && block.type === 'text')
      .map((block) => text((block as Block).text) ?? '');
    if (!carried(structured, json, texts)) {
      parts.push(`[structured content]\n${json}`);
      types.push('structured');
      sizes.push(json.length);
    }
  }
  const isError = record.isError === true;
  let content = parts.join('\n\n');
  if (content === '')
    content = isError ? '(the tool reported an error without details)' : '(no content)';
  if (options.redact) content = options.redact(content);
  const maxChars = Math.max(1, options.maxChars ?? DEFAULT_MAX_RESULT_CHARS);
  const originalLength = content.length;
  const truncated = originalLength > maxChars;
  if (truncated)
    content = `${cutAtCodePoint(content, maxChars)}\n[truncated: showed ${maxChars} of ${originalLength} characters]`;
  const meta: Record<string, JsonValue> = {
    provider: 'mcp',
    server: options.server,
    tool: options.tool,
    contentTypes: types,
    sizes,
    structured: hasStructured,
  };
  if (truncated) {
    meta.truncated = true;
    meta.originalLength = originalLength;
  }
  return images.length > 0 ? { content, isError, meta, images } : { content, isError, meta };
}
