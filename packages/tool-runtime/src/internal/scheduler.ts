// Concurrent execution, sequential commit: safe calls share a bounded pool, every other call is
// an exclusive barrier, and results (with their post-processing) are committed in call order.
//
// Written as a small state machine rather than an async loop: `advance()` prepares and starts calls
// until it must wait (pool full, barrier, asynchronous approval), and every completion or commit
// calls it again. No promise is created per call for waiting.
import { setMaxListeners } from 'node:events';
import type { ToolCallPart, ToolResultBody, ToolRunEvent, ToolRunOptions } from '@spine/protocol';
import { notStartedText } from '@spine/protocol';
import { type ExecutionListener, executeCall } from './execute.js';
import { finalizeCall } from './finalize.js';
import {
  type BatchContext,
  type ExecutedCall,
  isPromise,
  type PipelineState,
  type PreparedCall,
} from './pipeline.js';
import { isResult, prepareCall } from './prepare.js';
import { errorResult, messageOf } from './results.js';

const NOT_STARTED = notStartedText('the run was aborted');

type Slot = ToolResultBody | ExecutedCall;

/** Runs one batch; see `ToolScheduler.run`. */
export function runBatch(
  state: PipelineState,
  calls: readonly ToolCallPart[],
  options: ToolRunOptions,
  maxConcurrency: number,
): Promise<ToolResultBody[]> {
  return new Promise<ToolResultBody[]>((resolve, reject) => {
    new Batch(state, calls, options, maxConcurrency, resolve, reject).advance();
  });
}

// The batch is itself the `BatchContext` and the `ExecutionListener` (and its abort listener, via
// `handleEvent`): its methods live on the prototype, so no closure is made per batch and optimised
// code never records a call target that dies with the batch.
class Batch implements ExecutionListener, BatchContext {
  /**
   * One idle batch kept while the class lives, so the map (hidden class) every batch ends up with
   * survives full GCs between batches; see `CallExecution.shapeAnchor` in execute.ts for why.
   */
  static readonly shapeAnchor: unknown = new Batch(
    undefined as unknown as PipelineState,
    [],
    {},
    1,
    () => undefined,
    () => undefined,
  );
  readonly agent: string | undefined;
  readonly signal: AbortSignal;
  readonly approve: BatchContext['approve'];
  aborted = false;
  private readonly total: number;
  private readonly results: ToolResultBody[];
  private readonly slots: Array<Slot | undefined>;
  private readonly controller = new AbortController();
  private readonly executions: Array<{ abort(): void } | undefined>;
  private readonly onEvent: ToolRunOptions['onEvent'];
  private readonly external: AbortSignal | undefined;
  private emitFailure: { error: unknown } | undefined;
  /** Next call to prepare or start; `pending` holds it once prepared. */
  private next = 0;
  private pending: PreparedCall | undefined;
  private preparing = false;
  private advancing = false;
  /** Results committed so far (the commit cursor). */
  private cursor = 0;
  private committing = false;
  private running = 0;
  /** Index of the barrier in flight; nothing starts until it is committed. */
  private barrier = -1;
  private finished = false;

  constructor(
    private readonly state: PipelineState,
    private readonly calls: readonly ToolCallPart[],
    options: ToolRunOptions,
    private readonly maxConcurrency: number,
    private readonly resolve: (results: ToolResultBody[]) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.total = calls.length;
    this.results = new Array(this.total);
    this.slots = new Array(this.total);
    this.executions = new Array(this.total);
    this.agent = options.agent;
    this.approve = options.approve;
    this.onEvent = options.onEvent;
    const signal = this.controller.signal;
    this.signal = signal;
    setMaxListeners(0, signal);
    // Both listeners are objects with `handleEvent` (this batch), not closures.
    signal.addEventListener('abort', this);
    const external = options.signal;
    this.external = external;
    if (external?.aborted) this.controller.abort(external.reason);
    else external?.addEventListener('abort', this, { once: true });
  }

  /** Hears an abort: the external signal is forwarded, the batch's own stops every running call. */
  handleEvent(event: Event): void {
    if (event.target !== this.signal) {
      this.controller.abort(this.external?.reason);
      return;
    }
    this.aborted = true;
    for (const target of this.executions.slice()) target?.abort();
  }

  /** Hands an event to the caller; a throwing `onEvent` stops the batch (rethrown once it settles). */
  emit(event: ToolRunEvent): void {
    const onEvent = this.onEvent;
    if (!onEvent) return;
    try {
      onEvent(event);
    } catch (error) {
      this.emitFailure ??= { error };
      this.controller.abort(error);
    }
  }

  /** Registers running call `index` to be told when the batch aborts. */
  track(index: number, target: { abort(): void }): void {
    this.executions[index] = target;
  }

  /** Unregisters it. */
  untrack(index: number): void {
    this.executions[index] = undefined;
  }

  /** Prepares and starts calls until something must be waited for. */
  advance(): void {
    if (this.advancing || this.preparing) return;
    this.advancing = true;
    while (this.next < this.total) {
      if (this.barrier >= this.cursor) break;
      const index = this.next;
      const call = this.calls[index]!;
      if (!this.pending) {
        if (this.aborted) {
          this.next++;
          this.settle(index, errorResult(call, 'not-started', NOT_STARTED));
          continue;
        }
        // A call whose tool prechecks its arguments (against files earlier calls may change)
        // waits until every earlier call is committed.
        if (this.cursor !== index && this.state.tools.get(call.name)?.tool.precheck) break;
        let prepared: ReturnType<typeof prepareCall>;
        try {
          prepared = prepareCall(this.state, call, this);
        } catch (error) {
          // A visibility rule or a custom policy threw: answer the call, keep the batch going.
          prepared = errorResult(
            call,
            'error',
            `The call could not be prepared: ${messageOf(error)}`,
          );
        }
        if (isPromise(prepared)) {
          this.preparing = true;
          prepared.then(
            (value) => {
              this.preparing = false;
              this.accept(index, value);
              this.advance();
            },
            (error: unknown) => {
              this.preparing = false;
              this.accept(
                index,
                errorResult(call, 'error', `The call could not be prepared: ${messageOf(error)}`),
              );
              this.advance();
            },
          );
          break;
        }
        if (!this.accept(index, prepared)) continue;
      }
      const ready = this.pending!;
      if (ready.safe ? this.running >= this.maxConcurrency : this.cursor !== index) break;
      this.pending = undefined;
      this.next++;
      if (this.aborted) {
        this.settle(index, errorResult(call, 'not-started', NOT_STARTED, { params: ready.args }));
        continue;
      }
      this.emit({
        type: 'started',
        toolCallId: call.id,
        toolName: call.name,
        arguments: call.arguments,
      });
      if (this.emitFailure) {
        // `started` could not be recorded, so the tool must not run.
        this.settle(index, errorResult(call, 'not-started', NOT_STARTED, { params: ready.args }));
        continue;
      }
      this.running++;
      if (!ready.safe) this.barrier = index;
      executeCall(this.state, ready, this, this, index);
    }
    this.advancing = false;
    this.finishIfDone();
  }

  /** Hears a finished execution (see {@link ExecutionListener}). */
  executed(index: number, executed: ExecutedCall): void {
    this.running--;
    this.settle(index, executed);
    this.advance();
  }

  /** Takes a prepared call; returns false (and settles) when it already has its result. */
  private accept(index: number, prepared: PreparedCall | ToolResultBody): boolean {
    if (isResult(prepared)) {
      this.next++;
      this.settle(index, prepared);
      return false;
    }
    this.pending = prepared;
    return true;
  }

  private settle(index: number, slot: Slot): void {
    this.slots[index] = slot;
    if (index === this.cursor) this.pump();
  }

  /** Commits every ready slot from the cursor on; post-processing runs here, so in call order. */
  private pump(): void {
    if (this.committing) return;
    while (this.cursor < this.total) {
      const slot = this.slots[this.cursor];
      if (slot === undefined) break;
      this.slots[this.cursor] = undefined;
      if (isResult(slot)) {
        this.commit(slot);
        continue;
      }
      const body = finalizeCall(this.state, slot.prepared, slot);
      if (isPromise(body)) {
        this.committing = true;
        body.then((final) => {
          this.committing = false;
          this.commit(final);
          this.pump();
          this.advance();
        });
        return;
      }
      this.commit(body);
    }
    this.finishIfDone();
  }

  private commit(body: ToolResultBody): void {
    this.results[this.cursor] = body;
    this.cursor++;
    this.emit({ type: 'result', body });
  }

  private finishIfDone(): void {
    if (this.finished || this.cursor < this.total || this.next < this.total) return;
    this.finished = true;
    this.external?.removeEventListener('abort', this);
    if (this.emitFailure) this.reject(this.emitFailure.error);
    else this.resolve(this.results);
  }
}
