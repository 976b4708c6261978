import type { SessionEvent, SessionLog, ToolDefinition, ToolOutput } from '@spine/protocol';
import {
  clip,
  isCheckpointEvent,
  MESSAGE_EVENT_TYPES,
  messageOfEvent,
  renderMessage,
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
        'Returns original conversation events from the session log, as you saw them, including ones a <compacted-summary> replaced. Filter by seq (the #N references in checkpoints), seq range, turn/step range, tool call id, file path, or compaction id. Filters combine.',
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
        },
        additionalProperties: false,
      },
    },
    isConcurrencySafe: true,
    async execute(args): Promise<ToolOutput> {
      const { session } = options;
      const filters = Object.entries(args).filter(
        ([, value]) => value !== undefined && value !== null,
      );
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
        .filter((event) => MESSAGE_EVENT_TYPES.has(event.type));
      const pathCalls =
        args.path === undefined ? undefined : callsMentioning(candidates, args.path);
      const matches = candidates.filter((event) =>
        matchesFilters(event, args, { covered, pathCalls }),
      );
      if (matches.length === 0) {
        return { content: 'No events match these filters.', meta: { recalledSeqs: [] } };
      }
      const perEvent = matches.length === 1 ? maxChars : maxEventChars;
      const parts: string[] = [];
      const recalled: number[] = [];
      let used = 0;
      for (const event of matches) {
        const text = renderEvent(event, perEvent);
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

function matchesFilters(event: SessionEvent, args: RecallHistoryArgs, sets: FilterSets): boolean {
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
  if (args.toolCallId !== undefined || args.path !== undefined) {
    const message = messageOfEvent(event);
    if (!message) return false;
    if (args.toolCallId !== undefined) {
      const hit =
        message.role === 'tool'
          ? message.toolCallId === args.toolCallId
          : message.role === 'assistant' &&
            message.content.some(
              (part) => part.type === 'tool-call' && part.id === args.toolCallId,
            );
      if (!hit) return false;
    }
    if (args.path !== undefined) {
      const sourcePath = (event.body as { meta?: { sourcePath?: unknown } }).meta?.sourcePath;
      const answersPathCall =
        message.role === 'tool' && pathCalls?.has(message.toolCallId) === true;
      if (
        sourcePath !== args.path &&
        !answersPathCall &&
        !renderMessage(message).includes(args.path)
      ) {
        return false;
      }
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
        const type = session.get(seq)?.type;
        return type !== undefined && MESSAGE_EVENT_TYPES.has(type);
      });
      return seqs.length > 0 ? new Set(seqs) : undefined;
    }
  }
  return undefined;
}

function renderEvent(event: SessionEvent, limit: number): string {
  const message = messageOfEvent(event);
  const where =
    event.turn !== undefined
      ? ` · turn ${event.turn}${event.step !== undefined ? ` step ${event.step}` : ''}`
      : '';
  const role =
    message?.role === 'tool'
      ? `tool result ${message.toolName} ${message.toolCallId}`
      : (message?.role ?? event.type);
  const body = message ? renderMessage(message) : '';
  const text =
    body.length > limit
      ? `${clip(body, limit)}\n[event truncated from ${body.length} characters; call recall_history with {"seq": ${event.seq}} alone for more]`
      : body;
  return `--- #${event.seq}${where} · ${role} ---\n${text}`;
}
