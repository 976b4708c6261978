import type { Message } from '@spine/protocol';
import { JoinedBytes } from './joined-bytes.js';

const EPHEMERAL = '"cache_control":{"type":"ephemeral"}';

/** Adds a cache breakpoint to one encoded block (`{...}` → `{...,"cache_control":…}`). */
export function withBreakpoint(block: string): string {
  return `${block.slice(0, -1)},${EPHEMERAL}}`;
}

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

interface MarkedTurn {
  count: number;
  json: string;
  bytes?: Buffer;
}

interface Turn {
  role: 'user' | 'assistant';
  start: number;
  count: number;
}

/**
 * Groups messages into Anthropic turns (consecutive user and tool messages form one user turn)
 * and joins their JSON so that a request whose history only grew costs in proportion to the
 * new turns: each closed turn's text is cached by its first message, and the joined text of the
 * previous request is reused up to the first turn that differs. Only the (at most two) turns
 * carrying cache breakpoints are rebuilt every time.
 */
export class TurnEncoder {
  private readonly turnCache = new WeakMap<Message, { count: number; json: string }>();
  /**
   * The turns carrying a breakpoint in the previous request, by first message, with their text
   * and (once sent as chunks) its UTF-8: the last turn of one request is the previous user turn
   * of the next, marked the same way, so a large turn (an image) is neither rebuilt nor
   * re-encoded. Only the previous request's entries are kept (at most two turns).
   */
  private marked = new Map<Message, MarkedTurn>();
  private markedNow = new Map<Message, MarkedTurn>();
  private lastTurns: string[] = [];
  private lastJoined: string[] = [];
  private readonly stableBytes = new JoinedBytes<string>((text) => text);

  constructor(private readonly blocksFor: (message: Message) => readonly string[]) {}

  /** The `messages` array text; `breakpoints` puts cache_control on the last and previous user turn. */
  encode(messages: readonly Message[], breakpoints: boolean): string {
    const texts = this.texts(messages, breakpoints).texts;
    let shared = 0;
    const limit = Math.min(texts.length, this.lastTurns.length);
    while (shared < limit && texts[shared] === this.lastTurns[shared]) shared++;
    // joined[i] is the text of turns 0..i; V8 keeps each as a rope, so this costs O(new turns).
    const joined = this.lastJoined.slice(0, shared);
    for (let i = shared; i < texts.length; i++) {
      joined.push(i === 0 ? (texts[0] as string) : `${joined[i - 1]},${texts[i]}`);
    }
    this.lastTurns = texts;
    this.lastJoined = joined;
    return `[${joined.at(-1) ?? ''}]`;
  }

  /**
   * The UTF-8 bytes of {@link TurnEncoder.encode} as the text before the cached bytes (`[`),
   * the cached bytes of the closed turns before the first breakpoint, and the text after them
   * (the last turn and those carrying breakpoints, encoded each time, and `]`).
   */
  encodeChunks(
    messages: readonly Message[],
    breakpoints: boolean,
  ): { before: string; cached: Buffer; after: Buffer[] } {
    const { texts, firstMarked } = this.texts(messages, breakpoints);
    const cached = this.stableBytes.join(texts.slice(0, firstMarked));
    const after: Buffer[] = [];
    for (let i = firstMarked; i < texts.length; i++) {
      if (i > 0) after.push(COMMA);
      after.push(this.bytesOf(texts[i] as string));
    }
    after.push(CLOSE);
    return { before: '[', cached, after };
  }

  /** The UTF-8 of one turn's text: kept with a marked turn, encoded now otherwise. */
  private bytesOf(text: string): Buffer {
    for (const entry of this.marked.values()) {
      if (entry.json !== text) continue;
      entry.bytes ??= Buffer.from(text);
      return entry.bytes;
    }
    return Buffer.from(text);
  }

  /** Each turn's JSON, and the index of the first turn that is not closed and unmarked. */
  private texts(
    messages: readonly Message[],
    breakpoints: boolean,
  ): { texts: string[]; firstMarked: number } {
    const turns = groupTurns(messages);
    const marked = new Set<number>();
    // The last turn may still grow (tool results join a user turn), so it is never cached.
    let firstMarked = Math.max(turns.length - 1, 0);
    if (breakpoints && turns.length > 0) {
      marked.add(turns.length - 1);
      for (let i = turns.length - 2; i >= 0; i--) {
        if (turns[i]?.role === 'user') {
          marked.add(i);
          firstMarked = i;
          break;
        }
      }
    }
    const texts = turns.map((turn, i) => this.turnJson(messages, turn, marked.has(i)));
    this.marked = this.markedNow;
    this.markedNow = new Map();
    return { texts, firstMarked };
  }

  private turnJson(messages: readonly Message[], turn: Turn, breakpoint: boolean): string {
    const first = messages[turn.start] as Message;
    if (breakpoint) {
      const kept = this.marked.get(first);
      if (kept && kept.count === turn.count) {
        this.markedNow.set(first, kept);
        return kept.json;
      }
    }
    const cached = breakpoint ? undefined : this.turnCache.get(first);
    if (cached && cached.count === turn.count) return cached.json;
    const blocks: string[] = [];
    for (let i = turn.start; i < turn.start + turn.count; i++)
      blocks.push(...this.blocksFor(messages[i] as Message));
    if (breakpoint) blocks[blocks.length - 1] = withBreakpoint(blocks[blocks.length - 1] as string);
    const json = `{"role":"${turn.role}","content":[${blocks.join(',')}]}`;
    if (breakpoint) this.markedNow.set(first, { count: turn.count, json });
    else this.turnCache.set(first, { count: turn.count, json });
    return json;
  }
}

function groupTurns(messages: readonly Message[]): Turn[] {
  const turns: Turn[] = [];
  let current: Turn | undefined;
  for (let i = 0; i < messages.length; i++) {
    const role = (messages[i] as Message).role === 'assistant' ? 'assistant' : 'user';
    if (current && current.role === 'user' && role === 'user') current.count++;
    else {
      current = { role, start: i, count: 1 };
      turns.push(current);
    }
  }
  return turns;
}
