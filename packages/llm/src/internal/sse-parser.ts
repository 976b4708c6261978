import { TextDecoder } from 'node:util';

/** One dispatched server-sent event. */
export interface SseEvent {
  /** The `event:` field, when the server named the event (Anthropic). */
  event: string | undefined;
  /** The `data:` values joined with `\n`. */
  data: string;
}

/**
 * Incremental SSE decoder (the WHATWG event-stream rules a chat API needs): UTF-8 decoded
 * across chunk boundaries, `\n` and `\r\n` line ends, `:` comments dropped, multi-line
 * `data:` joined, one optional space after the colon stripped. A lone `\r` line end is not
 * supported (no provider sends it).
 */
export class SseParser {
  /** Created only when a chunk ends inside a UTF-8 sequence (or the stream opens with a BOM). */
  private decoder: TextDecoder | undefined;
  private started = false;
  private rest = '';
  private data: string | undefined;
  private event: string | undefined;
  /** Comment lines seen so far (keep-alives); they never count as data. */
  comments = 0;

  /** Feeds bytes; calls `onEvent` per dispatched event; returns how many events had data. */
  push<C = undefined>(
    chunk: Uint8Array,
    onEvent: (event: SseEvent, context: C) => void,
    context?: C,
  ): number {
    const text = this.rest + this.decode(chunk);
    return this.lines(text, onEvent, false, context as C);
  }

  /** Flushes the decoder at end of stream; a final event without its blank line is dispatched. */
  end<C = undefined>(onEvent: (event: SseEvent, context: C) => void, context?: C): number {
    const text = `${this.rest + (this.decoder?.decode() ?? '')}\n\n`;
    return this.lines(text, onEvent, true, context as C);
  }

  /**
   * UTF-8 text of one chunk. A chunk that ends on an ASCII byte leaves no sequence open, so it
   * is decoded on its own (SSE chunks end with a line break); a streaming decoder, which
   * costs a converter per request, is set up only when a chunk ends mid-sequence, and then
   * kept. A BOM opening the stream is dropped, as the event-stream rules say.
   */
  private decode(chunk: Uint8Array): string {
    const first = !this.started;
    this.started = true;
    if (
      this.decoder === undefined &&
      chunk.length > 0 &&
      (chunk[chunk.length - 1] as number) < 0x80
    ) {
      const bom = first && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf;
      return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length).toString(
        'utf8',
        bom ? 3 : 0,
      );
    }
    // A decoder created after the first chunk must not take a later U+FEFF for a BOM.
    this.decoder ??= new TextDecoder('utf-8', { ignoreBOM: !first });
    return this.decoder.decode(chunk, { stream: true });
  }

  private lines<C>(
    text: string,
    onEvent: (event: SseEvent, context: C) => void,
    final: boolean,
    context: C,
  ): number {
    let dispatched = 0;
    let start = 0;
    for (;;) {
      const newline = text.indexOf('\n', start);
      if (newline === -1) break;
      let end = newline;
      if (end > start && text.charCodeAt(end - 1) === 13) end--;
      if (end === start) {
        if (this.data !== undefined) {
          onEvent({ event: this.event, data: this.data }, context);
          dispatched++;
        }
        this.data = undefined;
        this.event = undefined;
      } else {
        this.field(text, start, end);
      }
      start = newline + 1;
    }
    this.rest = final ? '' : text.slice(start);
    return dispatched;
  }

  private field(text: string, start: number, end: number): void {
    const first = text.charCodeAt(start);
    if (first === 58) {
      this.comments++;
      return;
    }
    // Fast path: "data: " is by far the most common line.
    if (first === 100 && text.startsWith('data:', start)) {
      const value = text.slice(text.charCodeAt(start + 5) === 32 ? start + 6 : start + 5, end);
      this.data = this.data === undefined ? value : `${this.data}\n${value}`;
      return;
    }
    const colon = text.indexOf(':', start);
    const hasColon = colon !== -1 && colon < end;
    const name = text.slice(start, hasColon ? colon : end);
    let value = hasColon ? text.slice(colon + 1, end) : '';
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (name === 'data') this.data = this.data === undefined ? value : `${this.data}\n${value}`;
    else if (name === 'event') this.event = value;
    // `id` and `retry` are not used by chat APIs; unknown fields are ignored per the spec.
  }
}
