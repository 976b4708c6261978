import type {
  AppendOptions,
  AssistantMessageBody,
  JsonObject,
  SessionEvent,
  SessionRecoveredBody,
  ToolResultBody,
  ToolStartedBody,
} from '@spine/protocol';
import { notStartedText, outcomeUnknownText } from '@spine/protocol/core';
import type { SurfaceState } from './session-surface.js';

/**
 * Content of the result written for a call that reached `tool/started` but has no result:
 * `outcomeUnknownText('the process stopped')` of `@spine/protocol`, the one wording.
 */
export const OUTCOME_UNKNOWN_CONTENT = outcomeUnknownText('the process stopped');
/**
 * Content of the result written for a proposed call that never reached `tool/started`:
 * `notStartedText('the process stopped')` of `@spine/protocol`, the one wording.
 */
export const NOT_STARTED_CONTENT = notStartedText('the process stopped');

/** One event recovery will append. */
export interface PlannedEvent {
  type: string;
  body: unknown;
  options: AppendOptions;
}

/**
 * Plans the events that repair a session after a crash: a `tool/result` for every surface tool
 * call without one (outcome `unknown` when it had started, `not-started` otherwise), then one
 * `session/recovered` describing the repair. Pure: reads the log, appends nothing. It never adds
 * `turn/end`; whether to continue the turn is the agent loop's decision.
 */
export function planRecovery(input: {
  /** The events held in memory (a lazy session: the tail since its snapshot). */
  events: readonly SessionEvent[];
  /** The event with a seq (surface events are always held). */
  get: (seq: number) => SessionEvent | undefined;
  /** Call ids known to have reached `tool/started` before `events` (from a snapshot). */
  startedBefore?: Iterable<string>;
  surface: SurfaceState;
  repaired: { reason: string; truncatedBytes?: number } | undefined;
  recover: boolean;
  turn: number | undefined;
  step: number | undefined;
}): PlannedEvent[] {
  const planned: PlannedEvent[] = [];
  const reasons: string[] = [];
  const details: JsonObject = {};
  if (input.repaired) {
    reasons.push(input.repaired.reason);
    if (input.repaired.truncatedBytes !== undefined) {
      details.truncatedBytes = input.repaired.truncatedBytes;
    }
  }
  const open = input.recover ? input.surface.openCalls() : [];
  if (open.length > 0) {
    const started = new Set<string>(input.startedBefore);
    for (const event of input.events) {
      if (event.type === 'tool/started') started.add((event.body as ToolStartedBody).toolCallId);
    }
    const options: AppendOptions = { surfaceOp: { op: 'append' } };
    if (input.turn !== undefined) options.turn = input.turn;
    if (input.step !== undefined) options.step = input.step;
    const unknown: string[] = [];
    const notStarted: string[] = [];
    for (const call of open) {
      const assistant = input.get(call.assistantSeq)?.body as AssistantMessageBody | undefined;
      const part = assistant?.content.find(
        (candidate) => candidate.type === 'tool-call' && candidate.id === call.toolCallId,
      );
      const toolName = part?.type === 'tool-call' ? part.name : 'unknown';
      const wasStarted = started.has(call.toolCallId);
      (wasStarted ? unknown : notStarted).push(call.toolCallId);
      const body: ToolResultBody = {
        toolCallId: call.toolCallId,
        toolName,
        content: wasStarted ? OUTCOME_UNKNOWN_CONTENT : NOT_STARTED_CONTENT,
        isError: true,
        outcome: wasStarted ? 'unknown' : 'not-started',
      };
      planned.push({ type: 'tool/result', body, options });
    }
    reasons.push(
      `answered ${open.length} interrupted tool call(s): ${unknown.length} outcome unknown, ${notStarted.length} not started`,
    );
    details.outcomeUnknown = unknown;
    details.notStarted = notStarted;
  }
  if (reasons.length > 0) {
    const body: SessionRecoveredBody = { reason: reasons.join('; '), details };
    if (input.repaired?.truncatedBytes !== undefined)
      body.truncatedBytes = input.repaired.truncatedBytes;
    const options: AppendOptions = {};
    if (input.turn !== undefined) options.turn = input.turn;
    if (input.step !== undefined) options.step = input.step;
    planned.push({ type: 'session/recovered', body, options });
  }
  return planned;
}
