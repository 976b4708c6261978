import type {
  ImagePart,
  SessionEvent,
  SessionLog,
  SessionRange,
  ToolDefinition,
  ToolOutput,
} from '@spine/protocol';
import { eventsIn, type StreamingSessionLog } from './internal/recall-read.js';
import { isToolOutput, pageOfEvent, renderEvent } from './internal/recall-render.js';
import {
  isCheckpointEvent,
  isMessageEvent,
  messagesOfEvent,
  renderMessages,
  toolCallsOfEvent,
} from './internal/render.js';

/** Arguments of the `recall_history` tool; at least one filter is required, filters combine. */
export interface RecallHistoryArgs {
  /** One event by seq. */
  seq?: number;
  /** Seq range, inclusive. */
  seqFrom?: number;
  /** Last seq of the range. */
  seqTo?: number;
  /** Turn range, inclusive. */
  turnFrom?: number;
  /** Last turn of the range. */
  turnTo?: number;
  /** Step range, inclusive (within the turn range). */
  stepFrom?: number;
  /** Last step of the range. */
  stepTo?: number;
  /** The call and its result. */
  toolCallId?: string;
  /** Events that mention this file path. */
  path?: string;
  /** The events a compaction replaced. */
  compactionId?: number;
  /** With `seq` alone: the first character of the event to return (pages through a long one). */
  offset?: number;
  /** With `offset`: how many characters to return (default and cap: `maxChars`). */
  length?: number;
}

/** Options of {@link createRecallHistoryTool}. */
export interface RecallHistoryOptions {
  /**
   * The session whose log is recalled. With `readEvents` (session-log's `Session` has it), the
   * log is streamed, older events from the store, so a lazily opened session recalls events it
   * does not hold; without, `events()` is read.
   */
  session: SessionLog & {
    /** Streams the events of `range` in seq order, older ones from the store. */
    readEvents?(range: SessionRange): AsyncIterable<SessionEvent>;
  };
  /** Cap on the characters returned (default 24 000). */
  maxChars?: number;
  /** Cap on the characters of one event when several are returned (default 6 000). */
  maxEventChars?: number;
}

const INTEGER = { type: 'integer', minimum: 0 } as const;

/**
 * Creates the `recall_history` tool: the model asks for original events by turn range, step
 * range, seq, tool call id, file path or compaction id, and gets them back rendered as it saw
 * them, within size limits. The agent loop records the answer as `tool/result`, so the log
 * shows what was restored.
 *
 * @example
 * ```ts
 * const recall = createRecallHistoryTool({ session });
 * const output = await recall.execute({ compactionId: 42 }, context);
 * ```
 */
export function createRecallHistoryTool(
  options: RecallHistoryOptions,
): ToolDefinition<RecallHistoryArgs> {
  const maxChars = options.maxChars ?? 24_000;
  const maxEventChars = options.maxEventChars ?? 6_000;
  return {
    spec: {
      name: 'recall_history',
      description:
        'Returns original conversation events from the session log, as you saw them, including ones a <compacted-summary> replaced and the whole output of tool results that were cut to fit. Filter by seq (the #N references in checkpoints), seq range, turn/step range, tool call id, file path, or compaction id. Filters combine. Read a long event in parts with seq plus offset (and length).',
      parameters: {
        type: 'object',
        properties: {
          seq: { ...INTEGER, description: 'One event by seq (#N in a checkpoint).' },
          seqFrom: { ...INTEGER, description: 'First seq of a range.' },
          seqTo: { ...INTEGER, description: 'Last seq of a range.' },
          turnFrom: { ...INTEGER, description: 'First turn of a range.' },
          turnTo: { ...INTEGER, description: 'Last turn of a range.' },
          stepFrom: { ...INTEGER, description: 'First step of a range.' },
          stepTo: { ...INTEGER, description: 'Last step of a range.' },
          toolCallId: {
            type: 'string',
            description: 'A tool call id: returns the call and its result.',
          },
          path: { type: 'string', description: 'A file path: returns events that mention it.' },
          compactionId: {
            ...INTEGER,
            description: 'A compaction id: returns the events it replaced.',
          },
          offset: {
            ...INTEGER,
            description:
              'With seq: the first character to return, to read a long event (such as the whole output of a tool result cut to fit) in parts.',
          },
          length: {
            type: 'integer',
            minimum: 1,
            description: 'With offset: how many characters to return.',
          },
        },
        additionalProperties: false,
      },
    },
    isConcurrencySafe: true,
    async execute(args): Promise<ToolOutput> {
      const { session } = options;
      const filters = Object.entries(args).filter(
        ([key, value]) => value !== undefined && value !== null && key !== 'length',
      );
      if (args.offset !== undefined || args.length !== undefined) {
        return pageOfEvent(session, args, maxChars);
      }
      if (filters.length === 0) {
        return {
          content:
            'recall_history needs at least one filter: seq, seqFrom/seqTo, turnFrom/turnTo, stepFrom/stepTo, toolCallId, path or compactionId.',
          isError: true,
        };
      }
      let covered: Set<number> | undefined;
      if (args.compactionId !== undefined) {
        covered = await coveredBy(session, args.compactionId);
        if (!covered) {
          return { content: `No committed compaction has id ${args.compactionId}.`, isError: true };
        }
      }
      const from = args.seq ?? args.seqFrom ?? (covered ? least(covered) : 1);
      const to = args.seq ?? args.seqTo ?? (covered ? greatest(covered) : session.lastSeq);
      // The log is streamed (twice with a path: first for the calls that mention it), and only
      // what is returned is kept: a recall over a long range does not hold the range.
      const pathCalls =
        args.path === undefined ? undefined : await callsMentioning(session, from, to, args.path);
      const answer = new RecallAnswer(session, maxChars, maxEventChars);
      for await (const event of eventsIn(session, from, to)) {
        if (!(isMessageEvent(event) || isToolOutput(event))) continue;
        if (matchesFilters(session, event, args, { covered, pathCalls })) answer.add(event);
      }
      return answer.output();
    },
  };
}

/**
 * The answer to a recall, built as matching events stream by: each is rendered while the
 * `maxChars` budget lasts (the first waits for a second, since a lone match gets the whole
 * budget), the rest are only counted.
 */
class RecallAnswer {
  private readonly parts: string[] = [];
  /** Images of the recalled events, sent again with the answer (they stay in the blob store). */
  private readonly images: ImagePart[] = [];
  private readonly recalled: number[] = [];
  private used = 0;
  private matched = 0;
  private first: SessionEvent | undefined;
  private full = false;
  private nextSeq: number | undefined;

  constructor(
    private readonly session: SessionLog,
    private readonly maxChars: number,
    private readonly maxEventChars: number,
  ) {}

  add(event: SessionEvent): void {
    this.matched++;
    if (this.matched === 1) {
      this.first = event;
      return;
    }
    if (this.matched === 2) this.render(this.first as SessionEvent, this.maxEventChars, false);
    this.render(event, this.maxEventChars, false);
  }

  private render(event: SessionEvent, limit: number, alone: boolean): void {
    if (this.full) return;
    const text = renderEvent(this.session, event, limit, alone);
    if (this.used + text.length > this.maxChars && this.parts.length > 0) {
      this.full = true;
      this.nextSeq = event.seq;
      return;
    }
    const images = imagesOfEvent(event);
    this.parts.push(
      images.length === 0
        ? text
        : `${text}\n[${images.length} image(s) of event ${event.seq} attached again: ${images.map((image) => `${image.mediaType} ${image.width}×${image.height} sha256 ${image.sha256.slice(0, 12)}`).join('; ')}]`,
    );
    this.images.push(...images);
    this.recalled.push(event.seq);
    this.used += text.length;
  }

  output(): ToolOutput {
    if (this.matched === 0) {
      return { content: 'No events match these filters.', meta: { recalledSeqs: [] } };
    }
    if (this.matched === 1) this.render(this.first as SessionEvent, this.maxChars, true);
    const { parts, recalled, matched } = this;
    const left = matched - recalled.length;
    const more =
      left > 0
        ? `\n\n[${left} more matching events not shown; narrow with seqFrom=${this.nextSeq} or a smaller range]`
        : '';
    const output: ToolOutput = {
      content: `Recalled ${recalled.length} of ${matched} events from the session log.\n\n${parts.join('\n\n')}${more}`,
      meta: { recalledSeqs: recalled, truncated: left > 0 },
    };
    if (this.images.length > 0) output.images = this.images;
    return output;
  }
}

/** The images a user message or tool result carried (none for other events). */
function imagesOfEvent(event: SessionEvent): ImagePart[] {
  if (event.type !== 'user/message' && event.type !== 'tool/result') return [];
  const images = (event.body as { images?: ImagePart[] }).images;
  return Array.isArray(images) ? images : [];
}

interface FilterSets {
  covered: Set<number> | undefined;
  pathCalls: Set<string> | undefined;
}

async function callsMentioning(
  session: StreamingSessionLog,
  from: number,
  to: number,
  path: string,
): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const event of eventsIn(session, from, to, ['assistant/message'])) {
    for (const call of toolCallsOfEvent(event)) if (call.arguments.includes(path)) ids.add(call.id);
  }
  return ids;
}

function matchesFilters(
  session: SessionLog,
  event: SessionEvent,
  args: RecallHistoryArgs,
  sets: FilterSets,
): boolean {
  const { covered, pathCalls } = sets;
  if (covered && !covered.has(event.seq)) return false;
  const filtersByContent = args.path !== undefined || args.toolCallId !== undefined;
  if (args.seq === undefined && filtersByContent && isCheckpointEvent(event)) return false;
  const turn = event.turn ?? 0;
  const step = event.step ?? 0;
  if (args.turnFrom !== undefined && turn < args.turnFrom) return false;
  if (args.turnTo !== undefined && turn > args.turnTo) return false;
  if (args.stepFrom !== undefined && step < args.stepFrom) return false;
  if (args.stepTo !== undefined && step > args.stepTo) return false;
  if (!filtersByContent) return true;
  if (isToolOutput(event)) {
    const { toolCallId, content } = event.body;
    if (args.toolCallId !== undefined && toolCallId !== args.toolCallId) return false;
    return (
      args.path === undefined || pathCalls?.has(toolCallId) === true || content.includes(args.path)
    );
  }
  const messages = messagesOfEvent(session, event);
  if (!messages) return false;
  if (args.toolCallId !== undefined) {
    const id = args.toolCallId;
    const hit = messages.some((message) =>
      message.role === 'tool'
        ? message.toolCallId === id
        : message.role === 'assistant' &&
          message.content.some((part) => part.type === 'tool-call' && part.id === id),
    );
    if (!hit) return false;
  }
  if (args.path !== undefined) {
    const path = args.path;
    const sourcePath = (event.body as { meta?: { sourcePath?: unknown } }).meta?.sourcePath;
    const answersPathCall = messages.some(
      (message) => message.role === 'tool' && pathCalls?.has(message.toolCallId) === true,
    );
    if (sourcePath !== path && !answersPathCall && !renderMessages(messages).includes(path)) {
      return false;
    }
  }
  return true;
}

/**
 * The message events a committed compaction replaced: found from its checkpoint (the
 * `user/message` that replaced the region, naming the compaction first in `sourceEventSeqs`).
 */
async function coveredBy(
  session: StreamingSessionLog,
  compactionId: number,
): Promise<Set<number> | undefined> {
  let sources: number[] | undefined;
  for await (const event of eventsIn(session, compactionId, session.lastSeq, ['user/message'])) {
    if (event.sourceEventSeqs?.[0] === compactionId && event.surfaceOp?.op === 'replace') {
      sources = event.sourceEventSeqs.slice(1);
      break;
    }
  }
  if (!sources || sources.length === 0) return undefined;
  const wanted = new Set(sources);
  const seqs = new Set<number>();
  const low = least(sources);
  const high = greatest(sources);
  for await (const event of eventsIn(session, low, high)) {
    if (wanted.has(event.seq) && isMessageEvent(event)) seqs.add(event.seq);
  }
  return seqs.size > 0 ? seqs : undefined;
}

/** The smallest of `seqs` (a set can be too large to spread into `Math.min`). */
function least(seqs: Iterable<number>): number {
  let found = Number.POSITIVE_INFINITY;
  for (const seq of seqs) if (seq < found) found = seq;
  return found;
}

/** The largest of `seqs`. */
function greatest(seqs: Iterable<number>): number {
  let found = Number.NEGATIVE_INFINITY;
  for (const seq of seqs) if (seq > found) found = seq;
  return found;
}
