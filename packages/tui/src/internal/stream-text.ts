// Streamed model text made terminal-safe chunk by chunk, with the same result as the whole text:
// a provider cuts its deltas anywhere, including between the CR and LF of a line break and
// between the two halves of a surrogate pair (an emoji), so those are carried to the next chunk.
import { visibleText } from '@spine/protocol';

const LAYOUT = { keepLineBreaks: true } as const;

/** Whether `code` is the first half of a UTF-16 surrogate pair. */
function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * One streamed block's text, sanitised as it comes: the text {@link StreamText.push} returns,
 * followed by what {@link StreamText.end} returns, is `visibleText(whole, { keepLineBreaks: true })`
 * for any cut of `whole` into chunks, and no piece ends in half a surrogate pair (a stream would
 * write it as U+FFFD).
 */
export class StreamText {
  #carry = '';

  /** Adds a chunk; returns its terminal-safe text, less a trailing `\r` or high surrogate. */
  push(chunk: string): string {
    const text = this.#carry + chunk;
    let keep = text.length;
    // A high surrogate may be completed by the next chunk; a CR may be the first half of CR LF.
    if (keep > 0 && isHighSurrogate(text.charCodeAt(keep - 1))) keep--;
    if (keep > 0 && text.charCodeAt(keep - 1) === 0x0d) keep--;
    this.#carry = text.slice(keep);
    return keep === 0 ? '' : visibleText(text.slice(0, keep), LAYOUT);
  }

  /** Ends the block: what was carried, terminal-safe (`\r` alone is shown as `\x0d`). */
  end(): string {
    const rest = this.#carry;
    this.#carry = '';
    return rest === '' ? '' : visibleText(rest, LAYOUT);
  }

  /** Forgets what was carried (the block was abandoned). */
  discard(): void {
    this.#carry = '';
  }
}
