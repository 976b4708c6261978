// The loop detector: a pure function of the session log's events, kept as incremental state so a
// step costs time proportional to what the step appended, never to the log's length. It looks at
// one turn at a time (a new turn is new work) and reports at each `step/end` the loop that went
// on during that step, if any. The agent loop (loop-guard.ts) decides what to do with it.

import {
  type AssistantMessageBody,
  canonicalJson,
  type LoopKind,
  type SessionEvent,
  type ToolResultBody,
  type UserMessageBody,
} from '@spine/protocol';
import { repetitionOf, textKey, wordsOf } from './internal/loop-text.js';

/** Thresholds of the loop detector (config key `loops`). */
export interface LoopThresholds {
  /** The same tool call (name and canonical arguments) this many times in a row. Default 3. */
  repeatedCall: number;
  /** The same failing tool result (tool and content) this many times in a turn. Default 3. */
  repeatedError: number;
  /** Two different calls alternating (A B A B …) for this many A/B cycles. Default 3. */
  alternatingCycles: number;
  /**
   * An assistant text repeating itself: a phrase of 8 words this many times within one answer
   * (making up at least half of it), or the same answer of 24 words or more this many times in a
   * turn. Default 3.
   */
  repeatedText: number;
  /** This many steps in a row whose tool results were all seen before in the turn. Default 3. */
  noProgressSteps: number;
  /** Steps in which the loop goes on after the model was told, before the turn ends `stuck`. Default 2. */
  stopAfter: number;
}

/** The defaults of {@link LoopThresholds}. */
export const DEFAULT_LOOP_THRESHOLDS: Readonly<LoopThresholds> = Object.freeze({
  repeatedCall: 3,
  repeatedError: 3,
  alternatingCycles: 3,
  repeatedText: 3,
  noProgressSteps: 3,
  stopAfter: 2,
});

/** A loop found at the end of a step. */
export interface LoopFinding {
  /** What kind of loop. */
  kind: LoopKind;
  /** Occurrences of the pattern so far in the turn. */
  count: number;
  /** The threshold `count` reached. */
  threshold: number;
  /** What repeats, in a few words. */
  detail: string;
  /** Seqs of the events that make up the loop. */
  evidence: number[];
}

/** Words of an n-gram the text measure uses. */
const NGRAM = 8;
/** Answers shorter than this are not compared across steps ("Let me check." is no loop). */
const MIN_ANSWER_WORDS = 24;
/** Evidence lists keep at most this many seqs (the latest). */
const MAX_EVIDENCE = 32;

interface Counted {
  count: number;
  seqs: number[];
}

function push(seqs: number[], seq: number): void {
  if (seqs[seqs.length - 1] === seq) return;
  if (seqs.length >= MAX_EVIDENCE) seqs.shift();
  seqs.push(seq);
}

/** The call's identity: tool name plus canonical arguments (raw text when not JSON). */
function signatureOf(name: string, args: string): string {
  let canonical = args;
  try {
    canonical = canonicalJson(JSON.parse(args));
  } catch {
    // Not JSON: the raw text is the identity.
  }
  return `${name}\u0000${canonical}`;
}

function short(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function describeCall(signature: string): string {
  const cut = signature.indexOf('\u0000');
  return short(`${signature.slice(0, cut)} ${signature.slice(cut + 1)}`);
}

/**
 * Incremental loop detection over a session's events. Feed every event in order with
 * {@link LoopDetector.observe}; at each `step/end` it returns the loop that went on during the
 * step (the first by kind: repeated call, alternating calls, repeated error, repeated text, no
 * progress), else `undefined`. A `turn/start` or a person's input during the turn starts afresh.
 *
 * @example
 * ```ts
 * const detector = new LoopDetector({ repeatedCall: 4 });
 * for (const event of session.events()) {
 *   const finding = detector.observe(event);
 *   if (finding) console.log(finding.kind, finding.evidence);
 * }
 * ```
 */
export class LoopDetector {
  /** The thresholds in force (the given ones over {@link DEFAULT_LOOP_THRESHOLDS}). */
  readonly thresholds: Readonly<LoopThresholds>;
  #callOf = new Map<string, string>();
  // Repeated call: the current run of identical signatures.
  #lastCall: string | undefined;
  #runLength = 0;
  #runSeqs: number[] = [];
  // Alternating calls: the length of the current A B A B … suffix of the call sequence.
  #previousCall: string | undefined;
  #lastSeq: number | undefined;
  #alternating = 0;
  #alternatingSeqs: number[] = [];
  // Repeated errors and seen results (for no progress), keyed by hashes.
  #errors = new Map<string, Counted>();
  #seenResults = new Set<string>();
  #answers = new Map<string, Counted>();
  #noProgress = 0;
  #noProgressSeqs: number[] = [];
  // What happened in the current step.
  #step: { calls: boolean; text?: LoopFinding; error?: LoopFinding; results: number; news: number };

  /** Creates a detector; thresholds not given take {@link DEFAULT_LOOP_THRESHOLDS}. */
  constructor(thresholds: Partial<LoopThresholds> = {}) {
    this.thresholds = { ...DEFAULT_LOOP_THRESHOLDS, ...thresholds };
    this.#step = { calls: false, results: 0, news: 0 };
  }

  /** Takes one event into account; returns the loop that went on in the step a `step/end` closes. */
  observe(event: SessionEvent): LoopFinding | undefined {
    switch (event.type) {
      case 'turn/start':
        this.#reset();
        return undefined;
      case 'user/message':
        // A person's input mid-turn is new information: the loop, if any, starts afresh.
        if ((event.body as UserMessageBody).source === 'user' && (event.step ?? 0) > 0) {
          this.#reset();
        }
        return undefined;
      case 'assistant/message':
        this.#answer(event as SessionEvent<AssistantMessageBody>);
        return undefined;
      case 'tool/result':
        this.#result(event as SessionEvent<ToolResultBody>);
        return undefined;
      case 'step/end':
        return this.#endStep(event.seq);
      default:
        return undefined;
    }
  }

  #reset(): void {
    this.#callOf.clear();
    this.#lastCall = undefined;
    this.#runLength = 0;
    this.#runSeqs = [];
    this.#previousCall = undefined;
    this.#lastSeq = undefined;
    this.#alternating = 0;
    this.#alternatingSeqs = [];
    this.#errors.clear();
    this.#seenResults.clear();
    this.#answers.clear();
    this.#noProgress = 0;
    this.#noProgressSeqs = [];
    this.#step = { calls: false, results: 0, news: 0 };
  }

  #answer(event: SessionEvent<AssistantMessageBody>): void {
    let text = '';
    for (const part of event.body.content) {
      if (part.type === 'text') text += part.text;
      else if (part.type === 'tool-call')
        this.#call(signatureOf(part.name, part.arguments), part.id, event.seq);
    }
    if (text.length > 0) this.#text(text, event.seq);
  }

  #call(signature: string, id: string, seq: number): void {
    this.#callOf.set(id, signature);
    this.#step.calls = true;
    const last = this.#lastCall;
    if (signature === last) {
      this.#runLength++;
      push(this.#runSeqs, seq);
      this.#alternating = 1;
      this.#alternatingSeqs = [seq];
    } else {
      this.#runLength = 1;
      this.#runSeqs = [seq];
      if (last !== undefined && signature === this.#previousCall && this.#alternating >= 2) {
        this.#alternating++;
        push(this.#alternatingSeqs, seq);
      } else if (last !== undefined) {
        this.#alternating = 2;
        this.#alternatingSeqs = [this.#lastSeq ?? seq];
        push(this.#alternatingSeqs, seq);
      } else {
        this.#alternating = 1;
        this.#alternatingSeqs = [seq];
      }
    }
    this.#previousCall = last;
    this.#lastCall = signature;
    this.#lastSeq = seq;
  }

  #text(text: string, seq: number): void {
    const { repeatedText } = this.thresholds;
    const words = wordsOf(text);
    const within = repetitionOf(words, NGRAM);
    if (within.maxCount >= repeatedText && within.repeatedShare >= 0.5) {
      this.#step.text = {
        kind: 'repeated-text',
        count: within.maxCount,
        threshold: repeatedText,
        detail: short(`"${within.phrase}" ×${within.maxCount} in one answer`),
        evidence: [seq],
      };
      return;
    }
    if (words.length < MIN_ANSWER_WORDS) return;
    const key = `${within.whole.toString(36)}.${words.length}`;
    const seen = this.#answers.get(key) ?? { count: 0, seqs: [] };
    seen.count++;
    push(seen.seqs, seq);
    this.#answers.set(key, seen);
    if (seen.count >= repeatedText) {
      this.#step.text = {
        kind: 'repeated-text',
        count: seen.count,
        threshold: repeatedText,
        detail: short(`the same answer ×${seen.count}: "${words.slice(0, NGRAM).join(' ')}"`),
        evidence: [...seen.seqs],
      };
    }
  }

  #result(event: SessionEvent<ToolResultBody>): void {
    const body = event.body;
    const content = textKey(body.content);
    const call = this.#callOf.get(body.toolCallId) ?? `${body.toolName}\u0000?`;
    this.#step.results++;
    const key = `${call}\u0001${content}`;
    if (!this.#seenResults.has(key)) {
      this.#seenResults.add(key);
      this.#step.news++;
    }
    if (!body.isError) return;
    const errorKey = `${body.toolName}\u0000${content}`;
    const counted = this.#errors.get(errorKey) ?? { count: 0, seqs: [] };
    counted.count++;
    push(counted.seqs, event.seq);
    this.#errors.set(errorKey, counted);
    const { repeatedError } = this.thresholds;
    if (counted.count >= repeatedError) {
      this.#step.error = {
        kind: 'repeated-error',
        count: counted.count,
        threshold: repeatedError,
        detail: short(`${body.toolName} failed the same way ×${counted.count}: ${body.content}`),
        evidence: [...counted.seqs],
      };
    }
  }

  #endStep(seq: number): LoopFinding | undefined {
    const step = this.#step;
    this.#step = { calls: false, results: 0, news: 0 };
    const { repeatedCall, alternatingCycles, noProgressSteps } = this.thresholds;
    if (step.results > 0 && step.news === 0) {
      this.#noProgress++;
      push(this.#noProgressSeqs, seq);
    } else if (step.results > 0 || step.calls) {
      this.#noProgress = 0;
      this.#noProgressSeqs = [];
    }
    if (step.calls && this.#runLength >= repeatedCall && this.#lastCall !== undefined) {
      return {
        kind: 'repeated-call',
        count: this.#runLength,
        threshold: repeatedCall,
        detail: describeCall(this.#lastCall),
        evidence: [...this.#runSeqs],
      };
    }
    if (step.calls && this.#alternating >= 2 * alternatingCycles) {
      const a = this.#lastCall as string;
      const b = this.#previousCall as string;
      return {
        kind: 'alternating-calls',
        count: Math.floor(this.#alternating / 2),
        threshold: alternatingCycles,
        detail: short(`${describeCall(b)} ⇄ ${describeCall(a)}`),
        evidence: [...this.#alternatingSeqs],
      };
    }
    if (step.error) return step.error;
    if (step.text) return step.text;
    if (this.#noProgress >= noProgressSteps) {
      return {
        kind: 'no-progress',
        count: this.#noProgress,
        threshold: noProgressSteps,
        detail: `${this.#noProgress} steps in a row brought no tool result the turn had not seen`,
        evidence: [...this.#noProgressSeqs],
      };
    }
    return undefined;
  }
}

/**
 * Every loop the detector finds over `events`, one per `step/end` at which a loop went on: the
 * pure form of {@link LoopDetector}, for tools that read a log.
 */
export function detectLoops(
  events: Iterable<SessionEvent>,
  thresholds: Partial<LoopThresholds> = {},
): LoopFinding[] {
  const detector = new LoopDetector(thresholds);
  const found: LoopFinding[] = [];
  for (const event of events) {
    const finding = detector.observe(event);
    if (finding) found.push(finding);
  }
  return found;
}
