// What the turn loop does with the loop detector's findings: the first loop of a turn is recorded
// (`loop/detected`, action `noted`) and the model is told in a short `user/message` (source
// `loop-detector`) before its next request; when the loop goes on for `stopAfter` more steps, the
// loop is recorded again (action `stopped`) and the turn ends with reason `stuck`. Everything is
// derived from the log's own events, so replay and rerun see the same notes at the same steps.

import type { LoopDetectedBody, SessionEvent, SessionLog, UserMessageBody } from '@spine/protocol';
import { LoopDetector, type LoopFinding, type LoopThresholds } from './loop-detector.js';

/** The `user/message` source of the note that tells the model it is looping. */
export const LOOP_NOTE_SOURCE = 'loop-detector';

/** Watches one turn's events; see the file header. */
export interface LoopGuard {
  /**
   * Called after a step ended (`step/end` written). `continues` says whether the turn would go
   * on (the step made tool calls, or input waits). Returns the finding when the turn must end
   * `stuck`, else `undefined` (after telling the model, if this is the first loop of the turn).
   */
  afterStep(at: { turn: number; step: number }, continues: boolean): LoopFinding | undefined;
  /** Stops watching the session. */
  close(): void;
}

const ADVICE =
  'This looks like a loop. Do not repeat it: try a different approach, or stop and say what blocks you. If the loop goes on, the turn will be stopped.';

/** The note the model reads, by kind. */
export function loopNoteText(finding: LoopFinding): string {
  const what: Record<LoopFinding['kind'], string> = {
    'repeated-call': `You have made the same tool call ${finding.count} times in a row (${finding.detail}).`,
    'alternating-calls': `You keep alternating between the same two tool calls (${finding.detail}).`,
    'repeated-error': `The same tool call keeps failing the same way (${finding.count} times).`,
    'repeated-text': 'Your answers repeat the same text.',
    'no-progress': `Your last ${finding.count} steps brought no tool result you had not already seen.`,
  };
  return `<loop-detector kind="${finding.kind}">\n${what[finding.kind]} ${ADVICE}\n</loop-detector>`;
}

/**
 * The events of `turn` already in `session` (from its `turn/start`), found by walking back from
 * the end; empty when the turn has not started. A lazily opened session holds the events since its
 * newest snapshot: older ones of the turn are left out (the detector then starts from there).
 */
export function turnEventsSoFar(session: SessionLog, turn: number): SessionEvent[] {
  const events: SessionEvent[] = [];
  for (let seq = session.lastSeq; seq > 0; seq--) {
    const event = session.get(seq);
    if (!event) break;
    events.push(event);
    if (event.type === 'turn/start') {
      if (event.turn !== turn) return [];
      break;
    }
  }
  return events.reverse();
}

/**
 * Creates the guard of one turn over `session`, with `thresholds`. The turn's events already in
 * the log (a resumed, interrupted turn) are fed to the detector first, so a loop that began before
 * the interruption is counted on, and a loop already noted is not noted twice.
 */
export function createLoopGuard(
  session: SessionLog,
  thresholds: LoopThresholds,
  options: { turn?: number } = {},
): LoopGuard {
  const detector = new LoopDetector(thresholds);
  let pending: LoopFinding | undefined;
  let noted = false;
  let persisted = 0;
  if (options.turn !== undefined)
    for (const event of turnEventsSoFar(session, options.turn)) {
      // Findings at past step ends were acted on then (or lost in the crash): only the count of
      // steps the loop went on after its note carries over, as `afterStep` would have kept it.
      if (detector.observe(event) && noted) persisted++;
      if (event.type === 'loop/detected' && (event.body as LoopDetectedBody).action === 'noted')
        noted = true;
    }
  const unsubscribe = session.subscribe((event) => {
    const finding = detector.observe(event);
    if (finding) pending = finding;
  });
  const record = (
    finding: LoopFinding,
    action: LoopDetectedBody['action'],
    at: { turn: number; step: number },
  ): number => {
    const body: LoopDetectedBody = { ...finding, evidence: [...finding.evidence], action };
    return session.append('loop/detected', body, at).seq;
  };
  return {
    afterStep(at, continues) {
      const finding = pending;
      pending = undefined;
      if (!finding) return undefined;
      if (noted) persisted++;
      const stop =
        thresholds.stopAfter === 0 || !continues || (noted && persisted >= thresholds.stopAfter);
      if (stop) {
        record(finding, 'stopped', at);
        return finding;
      }
      if (noted) return undefined;
      noted = true;
      const loopSeq = record(finding, 'noted', at);
      const note: UserMessageBody = {
        content: loopNoteText(finding),
        source: LOOP_NOTE_SOURCE,
        meta: { loopSeq },
      };
      session.append('user/message', note, { ...at, surfaceOp: { op: 'append' } });
      return undefined;
    },
    close: unsubscribe,
  };
}
