// The SDK's stdio ReadBuffer throws, and its transport closes the connection, when one message
// passes 10 MiB: a server's big result then cost the connection and its one restart. This reader
// takes its place: a message over MAX_MESSAGE_BYTES is reduced to a cut result (for a response)
// or dropped (anything else), and the connection lives on. Memory stays bounded per line.
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { cutAtCodePoint } from './text-cut.js';

/** The SDK version whose private `StdioClientTransport._readBuffer` this module replaces. */
export const PINNED_SDK_VERSION = '1.32.2';
/** The largest message kept whole: below the SDK's 10 MiB limit. */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
/** How much of an oversized message's end is kept (where its `id` usually is). */
const TAIL_BYTES = 4_096;

type Ready = { line: string } | { message: JSONRPCMessage } | { error: Error };

const ID_AT_END = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")\s*\}\s*$/;
const ID_AT_START =
  /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")/;

/** The start of the first JSON text string in `head` (a cut JSON document), decoded. */
function firstText(head: string): string {
  const at = head.indexOf('"text":"');
  if (at < 0) return '';
  let body = head.slice(at + 8);
  const end = /(?<!\\)(?:\\\\)*"/.exec(body);
  if (end) body = body.slice(0, end.index + end[0].length - 1);
  // Drop an escape sequence the cut split (`\`, `\u12`).
  body = body.replace(/\\u[0-9a-fA-F]{0,3}$/, '').replace(/(?<!\\)(\\\\)*\\$/, '$1');
  try {
    const text = JSON.parse(`"${body}"`) as string;
    return cutAtCodePoint(text, text.length);
  } catch {
    return '';
  }
}

/** The message an oversized line becomes: a cut tool result for a response, else an error. */
export function reduceOversized(head: Buffer, tail: Buffer, total: number): Ready {
  const start = head.toString('utf8').replace(/\uFFFD+$/, '');
  const end = tail.toString('utf8');
  const id = ID_AT_END.exec(end)?.[1] ?? ID_AT_START.exec(start)?.[1];
  const note = `[cut by Spine: the server sent a message of ${total} bytes, over the ${MAX_MESSAGE_BYTES}-byte limit of one MCP message; this is the start of its first text]`;
  const edges = start.slice(0, 200) + end;
  const dropped = new Error(
    `an MCP message of ${total} bytes (over the ${MAX_MESSAGE_BYTES}-byte limit) was dropped`,
  );
  if (id === undefined || /"method"\s*:/.test(edges)) return { error: dropped };
  if (!/"result"\s*:/.test(edges)) {
    if (!/"error"\s*:/.test(edges)) return { error: dropped };
    // An error response: its request fails now instead of waiting for its timeout.
    return {
      message: {
        jsonrpc: '2.0',
        id: JSON.parse(id) as string | number,
        error: {
          code: -32603,
          message: `${note.slice(1, note.indexOf(';'))}; the error was not kept`,
        },
      },
    };
  }
  const text = firstText(start);
  return {
    message: {
      jsonrpc: '2.0',
      id: JSON.parse(id) as string | number,
      result: {
        content: [{ type: 'text', text: text ? `${text}\n${note}` : note }],
        _meta: { 'spine/cutBytes': total },
      },
    },
  };
}

/** The `id` of an oversized message, when its start or end shows one. */
function oversizedId(head: Buffer, tail: Buffer): string | number | undefined {
  const start = head.subarray(0, 4_096).toString('utf8');
  const id = ID_AT_START.exec(start)?.[1] ?? ID_AT_END.exec(tail.toString('utf8'))?.[1];
  if (id === undefined) return undefined;
  try {
    return JSON.parse(id) as string | number;
  } catch {
    return undefined;
  }
}

/** A drop-in for the SDK's `ReadBuffer` with a per-message limit instead of a fatal one. */
export class BoundedReadBuffer {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer | undefined;
  private total = 0;
  private readonly ready: Ready[] = [];

  /**
   * @param onOversizedRequest when given (a server reading requests), an oversized line is never
   *   reduced to a cut result: it is dropped, and this is called with its `id` when one is found,
   *   so the server can answer it with an error instead of leaving the request unanswered.
   */
  constructor(
    private readonly limit = MAX_MESSAGE_BYTES,
    private readonly onOversizedRequest?: (id: string | number | undefined, total: number) => void,
  ) {}

  /** Takes bytes read from the server's stdout. */
  append(chunk: Buffer): void {
    let rest = chunk;
    for (let index = rest.indexOf(10); index >= 0; index = rest.indexOf(10)) {
      this.addToLine(rest.subarray(0, index));
      this.finishLine();
      rest = rest.subarray(index + 1);
    }
    if (rest.length > 0) this.addToLine(rest);
  }

  /** The next complete message, or null. @throws when the line is not a JSON-RPC message. */
  readMessage(): JSONRPCMessage | null {
    const next = this.ready.shift();
    if (!next) return null;
    if ('error' in next) throw next.error;
    if ('message' in next) return next.message;
    return deserializeMessage(next.line);
  }

  /** Forgets everything buffered. */
  clear(): void {
    this.head = [];
    this.headBytes = 0;
    this.tail = undefined;
    this.total = 0;
    this.ready.length = 0;
  }

  private addToLine(part: Buffer): void {
    this.total += part.length;
    const room = this.limit - this.headBytes;
    if (this.tail === undefined && part.length <= room) {
      this.head.push(part);
      this.headBytes += part.length;
      return;
    }
    if (room > 0) {
      this.head.push(part.subarray(0, room));
      this.headBytes += room;
    }
    const over = room > 0 ? part.subarray(room) : part;
    const joined = this.tail ? Buffer.concat([this.tail, over]) : over;
    this.tail = Buffer.from(joined.subarray(Math.max(0, joined.length - TAIL_BYTES)));
  }

  private finishLine(): void {
    const head = Buffer.concat(this.head);
    if (this.tail === undefined) {
      const line = head.toString('utf8').replace(/\r$/, '');
      if (line.trim() !== '') this.ready.push({ line });
    } else if (this.onOversizedRequest) {
      const id = oversizedId(head, this.tail);
      this.ready.push({
        error: new Error(
          `an MCP message of ${this.total} bytes (over the ${this.limit}-byte limit) was dropped`,
        ),
      });
      this.onOversizedRequest(id, this.total);
    } else this.ready.push(reduceOversized(head, this.tail, this.total));
    this.head = [];
    this.headBytes = 0;
    this.tail = undefined;
    this.total = 0;
  }
}

/**
 * Replaces the SDK stdio transport's private read buffer with a {@link BoundedReadBuffer}.
 *
 * @throws an {@link Error} when the transport has no read buffer of the known shape (the SDK
 *   changed).
 */
export function installBoundedReader(
  transport: object,
  limit = MAX_MESSAGE_BYTES,
  onOversizedRequest?: (id: string | number | undefined, total: number) => void,
): void {
  const holder = transport as { _readBuffer?: Record<string, unknown> };
  const current = holder._readBuffer;
  const known =
    typeof current === 'object' &&
    current !== null &&
    ['append', 'readMessage', 'clear'].every((key) => typeof current[key] === 'function');
  if (!known)
    throw new Error(
      `@modelcontextprotocol/sdk's stdio transport no longer has the read buffer Spine replaces to bound message sizes (written for ${PINNED_SDK_VERSION}); pin @modelcontextprotocol/sdk to ${PINNED_SDK_VERSION}`,
    );
  holder._readBuffer = new BoundedReadBuffer(limit, onOversizedRequest) as unknown as Record<
    string,
    unknown
  >;
}
