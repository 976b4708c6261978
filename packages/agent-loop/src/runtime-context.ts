import type { AppendOptions, SessionEvent, SessionLog, UserMessageBody } from '@spine/protocol';
import { foldedState, runtimeContextFold } from './projections.js';

/** The source name runtime-context messages carry. */
export const RUNTIME_CONTEXT_SOURCE = 'runtime-context';

/**
 * Writes the runtime contexts (cwd, date, git branch …) into the session as a
 * `user/message` with `source: 'runtime-context'`, only when they changed since the last one
 * written. Its state is read back from the session, so a restart does not write a duplicate.
 * When compaction removed the last context message from the surface, the next write carries
 * the full snapshot again.
 *
 * @example
 * ```ts
 * const projection = new RuntimeContextProjection(session);
 * projection.project(prompt.assemble().contexts, { turn: 1, step: 1 }); // writes
 * projection.project(prompt.assemble().contexts, { turn: 1, step: 2 }); // unchanged: nothing
 * ```
 */
export class RuntimeContextProjection {
  readonly #session: SessionLog;
  #last: Record<string, string> | undefined;
  #lastSeq: number | undefined;
  #checkedGeneration: number;
  /** A frozen contexts object already found equal to `#last` (or just written). */
  #settled: Readonly<Record<string, string>> | undefined;

  /**
   * Restores the last written snapshot from `session` (its `agent-loop/runtime-context`
   * projection when registered).
   *
   * @throws a {@link PartialHistoryError} for a lazily opened session without the projection.
   */
  constructor(session: SessionLog) {
    this.#session = session;
    this.#checkedGeneration = -1;
    const last = foldedState(session, runtimeContextFold).last;
    if (last) {
      this.#last = { ...last.snapshot };
      this.#lastSeq = last.seq;
    }
    this.#dropIfCompactedAway();
  }

  /** The snapshot last written (or restored), if any. */
  get current(): Readonly<Record<string, string>> | undefined {
    return this.#last;
  }

  /**
   * Appends a runtime-context message when `contexts` differs from the last snapshot and
   * returns it; returns `undefined` (and writes nothing) when nothing changed.
   */
  project(
    contexts: Readonly<Record<string, string>>,
    options: AppendOptions = {},
  ): SessionEvent | undefined {
    this.#dropIfCompactedAway();
    // The frozen snapshot SystemPrompt hands out again while nothing changed: settled already.
    if (contexts === this.#settled) return undefined;
    const previous = this.#last;
    const changed: string[] = [];
    const removed: string[] = [];
    for (const [key, value] of Object.entries(contexts)) {
      if (previous?.[key] !== value) changed.push(key);
    }
    if (previous)
      for (const key of Object.keys(previous)) if (!(key in contexts)) removed.push(key);
    if (changed.length === 0 && removed.length === 0) {
      if (Object.isFrozen(contexts)) this.#settled = contexts;
      return undefined;
    }

    const full = previous === undefined;
    const lines = changed.map((key) => `${key}: ${contexts[key]}`);
    for (const key of removed) lines.push(`${key}: (no longer set)`);
    const open = full
      ? '<runtime-context>'
      : `<runtime-context changed="${[...changed, ...removed].join(', ')}">`;
    const snapshot = { ...contexts };
    const body: UserMessageBody = {
      content: `${open}\n${lines.join('\n')}\n</runtime-context>`,
      source: RUNTIME_CONTEXT_SOURCE,
      meta: { snapshot, changed: [...changed, ...removed], full },
    };
    const event = this.#session.append('user/message', body, {
      ...options,
      surfaceOp: { op: 'append' },
    });
    this.#last = snapshot;
    this.#lastSeq = event.seq;
    this.#settled = Object.isFrozen(contexts) ? contexts : undefined;
    return event;
  }

  #dropIfCompactedAway(): void {
    const generation = this.#session.replaceGeneration;
    if (generation === this.#checkedGeneration) return;
    this.#checkedGeneration = generation;
    if (this.#lastSeq !== undefined && !this.#session.surface().includes(this.#lastSeq)) {
      this.#last = undefined;
      this.#lastSeq = undefined;
      this.#settled = undefined;
    }
  }
}
