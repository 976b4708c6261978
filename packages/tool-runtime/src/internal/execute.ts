import type { JsonValue, ToolDefinition, ToolExecutionContext, ToolOutput } from '@spine/protocol';
import type { BatchContext, ExecutedCall, PipelineState, PreparedCall } from './pipeline.js';
import { messageOf, type ToolOutcome } from './results.js';

/** Receives finished executions (an object rather than a closure per call). */
export interface ExecutionListener {
  executed(index: number, executed: ExecutedCall): void;
}

/**
 * Runs the execute chain (path locks → execute wrappers → the tool) with the tool's timeout and the
 * batch signal. A tool that does not settle within `abortGraceMs` after its signal fired is given
 * up on: its result says its effects are unknown. The listener hears of each call exactly once.
 */
export function executeCall(
  state: PipelineState,
  prepared: PreparedCall,
  batch: BatchContext,
  listener: ExecutionListener,
  index: number,
): void {
  new CallExecution(state, prepared, batch, listener, index).start();
}

const EMPTY_OUTPUT: ToolOutput = Object.freeze({ content: '' });

// A class rather than closures, and itself the `ExecutedCall`: one object per call for all the
// bookkeeping, which matters when a batch holds a thousand cheap calls.
class CallExecution implements ExecutedCall {
  /**
   * One idle execution kept while the class lives. V8 reaches the map an instance ends up with only
   * through weak transitions from the class's initial map: when a full GC finds no live instance,
   * the map dies and every optimised function that checks for it is deoptimised. A batch's
   * executions all die between batches, so without an anchor each full GC sent the whole pipeline
   * back to the interpreter for the next batch. A static field, not a module constant: a bundle
   * (the published dist) makes an unused module constant a local of the module's top-level code,
   * which dies as soon as the module has run.
   */
  static readonly shapeAnchor: ExecutedCall = new CallExecution(
    undefined as unknown as PipelineState,
    { context: {}, entry: { tool: {} } } as unknown as PreparedCall,
    undefined as unknown as BatchContext,
    undefined as unknown as ExecutionListener,
    -1,
  );
  output: ToolOutput = EMPTY_OUTPUT;
  outcome: ToolOutcome = 'ok';
  // NaN, not 0: the field holds a double from the start, so the first fractional duration does
  // not change its representation (which would give executions a new map; see the anchor below).
  durationMs = Number.NaN;
  readonly context: ToolExecutionContext;
  private readonly started = performance.now();
  /** The tool's own timeout, when it has one (kept apart: most tools have none). */
  private timeout: CallTimeout | undefined;
  private grace: NodeJS.Timeout | undefined;
  private done = false;

  constructor(
    private readonly state: PipelineState,
    readonly prepared: PreparedCall,
    private readonly batch: BatchContext,
    private readonly listener: ExecutionListener,
    private readonly index: number,
  ) {
    this.context = prepared.context;
  }

  /** Starts the chain. */
  start(): void {
    // Bound methods, not closures: the optimised code of a closure made per call dies with the
    // batch's closures at a full GC and is compiled again for the next batch; a method's stays.
    this.context.onProgress = this.progress.bind(this);
    const timeoutMs = (this.prepared.entry.tool as ToolDefinition<JsonValue>).timeoutMs;
    if (timeoutMs !== undefined) this.armTimeout(timeoutMs);
    this.batch.track(this.index, this);
    if (this.timeout ? this.timeout.controller.signal.aborted : this.batch.aborted) this.stopping();
    let run: Promise<ToolOutput>;
    try {
      const paths = this.prepared.paths;
      run =
        paths.length > 0 ? this.state.pathLocks.run(paths, () => this.invoke(0)) : this.invoke(0);
    } catch (error) {
      run = Promise.reject(error);
    }
    run.then(this.fulfilled.bind(this), this.rejected.bind(this));
  }

  /** The context's `onProgress`. */
  private progress(progress: ToolProgress): void {
    // A tool that reports after it returned must not put progress after its own result.
    if (!this.done)
      this.batch.emit({ type: 'progress', toolCallId: this.prepared.toolCallId, ...progress });
  }

  private fulfilled(output: ToolOutput): void {
    this.settle(output, undefined, true);
  }

  private rejected(error: unknown): void {
    this.settle(undefined, error, true);
  }

  /** Gives the call its own signal, aborted by the batch or after `ms`. */
  private armTimeout(ms: number): void {
    const controller = new AbortController();
    const timeout: CallTimeout = {
      ms,
      controller,
      timer: setTimeout(() => this.expire(), ms),
      timedOut: false,
    };
    this.timeout = timeout;
    this.context.signal = controller.signal;
    controller.signal.addEventListener('abort', () => this.stopping(), { once: true });
  }

  /** Called by the batch when it aborts. */
  abort(): void {
    if (this.timeout) this.timeout.controller.abort(this.batch.signal.reason);
    else this.stopping();
  }

  private invoke(index: number): Promise<ToolOutput> {
    const wrappers = this.state.hooks.execute;
    if (index < wrappers.length)
      return wrappers[index]!(this.prepared, this.context, () => this.invoke(index + 1));
    return (this.prepared.entry.tool as ToolDefinition<JsonValue>).execute(
      this.prepared.args,
      this.context,
    );
  }

  private expire(): void {
    const timeout = this.timeout!;
    timeout.timedOut = true;
    timeout.controller.abort(new Error(`timed out after ${timeout.ms} ms`));
  }

  private stopping(): void {
    this.grace ??= setTimeout(
      () => this.settle(undefined, undefined, false),
      this.state.abortGraceMs,
    );
  }

  private settle(output: ToolOutput | undefined, failure: unknown, settled: boolean): void {
    if (this.done) return;
    this.done = true;
    if (this.timeout) clearTimeout(this.timeout.timer);
    if (this.grace) clearTimeout(this.grace);
    this.batch.untrack(this.index);
    this.durationMs = Math.round((performance.now() - this.started) * 1000) / 1000;
    this.describe(output, failure, settled);
    this.listener.executed(this.index, this);
  }

  private describe(output: ToolOutput | undefined, failure: unknown, settled: boolean): void {
    const timeout = this.timeout;
    if (settled && !(timeout ? timeout.controller.signal.aborted : this.batch.aborted)) {
      if (output !== undefined) {
        this.output = output;
        this.outcome = output.isError ? 'error' : 'ok';
      } else {
        this.output = { content: `Tool failed: ${messageOf(failure)}`, isError: true };
        this.outcome = 'error';
      }
      return;
    }
    const timedOut = timeout?.timedOut === true;
    this.outcome = timedOut ? 'timeout' : 'aborted';
    const why = timedOut ? `timed out after ${timeout!.ms} ms` : 'was aborted';
    if (!settled) {
      const content = `The tool ${why} and did not stop within ${this.state.abortGraceMs} ms; its effects are unknown. Check the state before retrying.`;
      this.output = { content, isError: true };
    } else if (output === undefined) {
      this.output = { content: `The tool ${why}: ${messageOf(failure)}`, isError: true };
    } else {
      const note = timedOut ? `timed out after ${timeout!.ms} ms` : 'aborted';
      this.output = { ...output, content: `${output.content}\n[${note}]`, isError: true };
    }
  }
}

/** What a tool reports through `context.onProgress`. */
type ToolProgress = Parameters<NonNullable<ToolExecutionContext['onProgress']>>[0];

/** The state of a tool's own timeout (only calls of tools with `timeoutMs` have one). */
interface CallTimeout {
  readonly ms: number;
  readonly controller: AbortController;
  readonly timer: NodeJS.Timeout;
  timedOut: boolean;
}
