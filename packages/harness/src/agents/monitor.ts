// Live state of a session's subagents for the REPL: one entry per child (its number in the
// session, profile, description, current tool, steps, start and end) and a short transcript of
// its tool calls, results and answer. Fed by the task tool's onProgress and onChildAgent hooks
// (agents/wiring.ts); read by the live panel (agents/panel.ts) and labelled approval prompts.
import type { Agent } from '@spine/agent-loop';
import {
  type SessionEvent,
  type SessionLog,
  type SessionRange,
  visibleText,
} from '@spine/protocol';
import type { Session } from '@spine/session-log';
import type { ChildInfo, ChildProgressEvent } from '@spine/subagents';
import { sessionTotals } from '../history/totals.js';
import { preview, summarizeArguments } from '../text.js';

/** Transcript entries kept per child (the oldest are dropped). */
const TRANSCRIPT_LIMIT = 60;

/** One line of a child's transcript. */
export interface TranscriptEntry {
  /** A tool call, its result (or error), or the child's answer. */
  kind: 'call' | 'result' | 'error' | 'answer';
  /** One line, already made visible (no control sequences) and shortened. */
  text: string;
}

/** What the REPL knows of one child. */
export interface ChildState {
  /** 1 for the session's first child, counted over the session's `agent/child/start` events. */
  number: number;
  /** The child's profile, description and session. */
  info: ChildInfo;
  /** When it started (`Date.now()`). */
  startedAt: number;
  /** Steps finished so far. */
  steps: number;
  /** The tool it runs now (name and argument summary), if any. */
  current?: {
    /** The tool name, made visible. */
    name: string;
    /** Its arguments, summarized. */
    summary: string;
  };
  /** How it ended, once it has. */
  ended?: {
    /** The turn's end reason (`completed`, `aborted` …). */
    reason: string;
    /** When (`Date.now()`). */
    at: number;
  };
  /** Its latest tool calls, results and answer, oldest first. */
  transcript: TranscriptEntry[];
}

/** What changed: a child started, made progress, or ended; `entry` is a new transcript line. */
export interface MonitorEvent {
  /** What happened. */
  type: 'start' | 'update' | 'end';
  /** The child, as it is now. */
  child: ChildState;
  /** The transcript line this event added, if any. */
  entry?: TranscriptEntry;
}

/** `[explore #1]`: how the person sees a child in progress lines and approval prompts. */
export function childLabel(child: Pick<ChildState, 'number' | 'info'>): string {
  return `[${visibleText(child.info.profile.name)} #${child.number}]`;
}

/** Collects the live state of one parent session's children. */
export class ChildMonitor {
  readonly #children = new Map<string, ChildState>();
  readonly #listeners = new Set<(event: MonitorEvent) => void>();
  #count: number;

  /** `earlier`: children the session already had (a resumed session), so numbers continue. */
  constructor(earlier = 0) {
    this.#count = earlier;
  }

  /** Calls `listener` on every change; returns the unsubscribe function. */
  subscribe(listener: (event: MonitorEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Children still running, oldest first. */
  running(): ChildState[] {
    return [...this.#children.values()].filter((child) => !child.ended);
  }

  /** The child with this number (started in this process), if any. */
  byNumber(number: number): ChildState | undefined {
    for (const child of this.#children.values()) if (child.number === number) return child;
    return undefined;
  }

  /** The child with this session id, if it started in this process. */
  bySession(sessionId: string): ChildState | undefined {
    return this.#children.get(sessionId);
  }

  /** The task tool's `onProgress` hook. */
  onProgress = (event: ChildProgressEvent): void => {
    if (event.type === 'start') {
      const child: ChildState = {
        number: ++this.#count,
        info: event.child,
        startedAt: Date.now(),
        steps: 0,
        transcript: [],
      };
      this.#children.set(event.child.sessionId, child);
      this.#emit({ type: 'start', child });
      return;
    }
    const child = this.#children.get(event.child.sessionId);
    if (!child || event.type !== 'end') return;
    delete child.current;
    child.ended = { reason: event.reason, at: Date.now() };
    this.#emit({ type: 'end', child });
  };

  /** The task tool's `onChildAgent` hook: follows the child's tool calls, results and steps. */
  onChildAgent = (agent: Agent, info: ChildInfo): void => {
    const child = this.#children.get(info.sessionId);
    if (!child) return;
    let answer = '';
    agent.on('tool-call', ({ call }) => {
      const summary = summarizeArguments(call.arguments, 60);
      child.current = { name: visibleText(call.name), summary };
      this.#add(child, { kind: 'call', text: `→ ${visibleText(call.name)} ${summary}` });
    });
    agent.on('tool-result', ({ result }) => {
      delete child.current;
      const mark = result.isError ? `✗ ${result.outcome ?? 'error'}` : '✓';
      this.#add(child, {
        kind: result.isError ? 'error' : 'result',
        text: `${mark} ${visibleText(result.toolName)} ${preview(result.content, 100)}`,
      });
    });
    agent.on('text-delta', ({ text }) => {
      answer += text;
    });
    agent.on('step-end', () => {
      child.steps++;
      if (answer.trim()) this.#add(child, { kind: 'answer', text: preview(answer, 160) });
      answer = '';
    });
  };

  #add(child: ChildState, entry: TranscriptEntry): void {
    child.transcript.push(entry);
    if (child.transcript.length > TRANSCRIPT_LIMIT) child.transcript.shift();
    this.#emit({ type: 'update', child, entry });
  }

  #emit(event: MonitorEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}

const monitors = new WeakMap<SessionLog, ChildMonitor>();

/** A session that can stream events it does not hold (a lazily opened `Session`). */
type Streaming = SessionLog & {
  readEvents?(range: SessionRange): AsyncIterable<SessionEvent>;
};

/** Children the session started before now: its `agent/child/start` events. */
function earlierChildren(session: SessionLog): number {
  const events = session.events();
  if (events.length < session.lastSeq) {
    // Part of the history is not in memory: every child a crash left open was closed on resume,
    // so the totals projection's ended children count them all.
    try {
      return sessionTotals(session as Session).children.length;
    } catch {
      // no projection: count what is held
    }
  }
  let count = 0;
  for (const event of events) if (event.type === 'agent/child/start') count++;
  return count;
}

/** The monitor of a parent session's children (created on first use). */
export function childMonitorFor(session: SessionLog): ChildMonitor {
  let monitor = monitors.get(session);
  if (!monitor) {
    monitor = new ChildMonitor(earlierChildren(session));
    monitors.set(session, monitor);
  }
  return monitor;
}

/** The session id of the session's `number`th child (1-based, in `agent/child/start` order). */
export async function childSessionAt(
  session: SessionLog,
  number: number,
): Promise<string | undefined> {
  const stream = (session as Streaming).readEvents;
  const events: AsyncIterable<SessionEvent> | Iterable<SessionEvent> = stream
    ? stream.call(session, { fromSeq: 1, types: ['agent/child/start'] })
    : session.events();
  let seen = 0;
  for await (const event of events) {
    if (event.type !== 'agent/child/start') continue;
    if (++seen === number) return (event.body as { sessionId?: string }).sessionId;
  }
  return undefined;
}
