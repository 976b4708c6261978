import type { SessionEvent, SessionLog, ToolDefinition, ToolOutput } from '@spine/protocol';
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
  /** The session whose log is recalled. */
  session: SessionLog;
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
        covered = coveredBy(session, args.compactionId);
        if (!covered) {
          return { content: `No committed compaction has id ${args.compactionId}.`, isError: true };
        }
      }
      const from = args.seq ?? args.seqFrom ?? (covered ? Math.min(...covered) : 1);
      const to = args.seq ?? args.seqTo ?? (covered ? Math.max(...covered) : session.lastSeq);
      const candidates = session
        .events({ from, to })
        .filter((event) => isMessageEvent(event) || isToolOutput(event));
      const pathCalls =
        args.path === undefined ? undefined : callsMentioning(candidates, args.path);
      const matches = candidates.filter((event) =>
        matchesFilters(session, event, args, { covered, pathCalls }),
      );
      if (matches.length === 0) {
        return { content: 'No events match these filters.', meta: { recalledSeqs: [] } };
      }
      const perEvent = matches.length === 1 ? maxChars : maxEventChars;
      const parts: string[] = [];
      const recalled: number[] = [];
      let used = 0;
      for (const event of matches) {
        const text = renderEvent(session, event, perEvent, matches.length === 1);
        if (used + text.length > maxChars && parts.length > 0) break;
        parts.push(text);
        recalled.push(event.seq);
        used += text.length;
      }
      const left = matches.length - recalled.length;
      const more =
        left > 0
          ? `\n\n[${left} more matching events not shown; narrow with seqFrom=${(matches[recalled.length] as SessionEvent).seq} or a smaller range]`
          : '';
      return {
        content: `Recalled ${recalled.length} of ${matches.length} events from the session log.\n\n${parts.join('\n\n')}${more}`,
        meta: { recalledSeqs: recalled, truncated: left > 0 },
      };
    },
  };
}

interface FilterSets {
  covered: Set<number> | undefined;
  pathCalls: Set<string> | undefined;
}

function callsMentioning(events: readonly SessionEvent[], path: string): Set<string> {
  const ids = new Set<string>();
  for (const event of events) {
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

function coveredBy(session: SessionLog, compactionId: number): Set<number> | undefined {
  for (const event of session.events({ from: compactionId })) {
    if (
      event.type === 'user/message' &&
      event.sourceEventSeqs?.[0] === compactionId &&
      event.surfaceOp?.op === 'replace'
    ) {
      const seqs = event.sourceEventSeqs.slice(1).filter((seq) => {
        const covered = session.get(seq);
        return covered !== undefined && isMessageEvent(covered);
      });
      return seqs.length > 0 ? new Set(seqs) : undefined;
    }
  }
  return undefined;
}
