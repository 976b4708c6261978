import type { AttemptBody, ImagePart, InboxItem, InboxQueue } from '@spine/protocol';
import {
  addUsage,
  assertSpecificationVersion,
  type CompactionOutcome,
  type ModelClient,
  outcomeUnknownText,
  type SessionLog,
  type ToolResultBody,
  type UnsupportedSpecificationError,
  type Usage,
  type UserMessageBody,
} from '@spine/protocol';
import { EventEmitter } from 'eventemitter3';
import { AgentBusyError } from './errors.js';
import { Inbox } from './inbox.js';
import { DEFAULT_LOOP_THRESHOLDS } from './loop-detector.js';
import { type OpenTurn, restoreLoopState } from './recovery.js';
import { RequestBuilder } from './request-builder.js';
import { createFallbackRetryPolicy } from './retry.js';
import { RuntimeContextProjection } from './runtime-context.js';
import type { StepContext, StepStart } from './step.js';
import { SystemPrompt } from './system-prompt.js';
import { runTurnLoop } from './turn.js';
import type { AgentEvents, AgentOptions, RunOptions, TurnResult } from './types.js';

const DEFAULT_CONTEXT_WINDOW = 128_000;
const DEFAULT_MAX_STEPS = 100;

/**
 * The agent: turns, steps and attempts over a session, with inbox queues, recorded requests,
 * retry, cancellation and crash recovery. Live events for UIs are emitted (see
 * {@link AgentEvents}); everything that matters is in the session log. Create it with
 * {@link createAgent}.
 */
export class Agent extends EventEmitter<AgentEvents> {
  readonly #context: StepContext;
  #usage: Usage;
  #lastTurn: number;
  #open: OpenTurn | undefined;
  #running: number | undefined;

  /** Use {@link createAgent}. */
  constructor(options: AgentOptions) {
    super();
    assertSpecificationVersion('ModelClient', options.model);
    assertSpecificationVersion('ToolScheduler', options.tools);
    if (options.compaction) assertSpecificationVersion('CompactionEngine', options.compaction);
    if (options.meter) assertSpecificationVersion('TokenMeter', options.meter);
    const { session } = options;
    const restored = restoreLoopState(session);
    this.#usage = restored.usage;
    this.#lastTurn = restored.lastTurn;
    this.#open = restored.open;
    const context: StepContext = {
      session,
      model: options.model,
      modelId: options.modelId,
      contextWindow: options.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
      tools: options.tools,
      prompt: options.systemPrompt ?? new SystemPrompt(),
      retryPolicy: options.retryPolicy ?? createFallbackRetryPolicy(),
      maxSteps: options.maxSteps ?? DEFAULT_MAX_STEPS,
      builder: new RequestBuilder(session),
      projection: new RuntimeContextProjection(session),
      inbox: new Inbox(session),
      // Bound once: no rest-parameter array per live event.
      emit: this.emit.bind(this) as unknown as StepContext['emit'],
      listens: (name) => this.listenerCount(name) > 0,
      addUsage: (usage) => {
        this.#usage = addUsage(this.#usage, usage);
      },
    };
    if (options.maxOutputTokens !== undefined) context.maxOutputTokens = options.maxOutputTokens;
    if (options.compaction) context.compaction = options.compaction;
    if (options.meter) context.meter = options.meter;
    if (options.loops) context.loops = { ...DEFAULT_LOOP_THRESHOLDS, ...options.loops };
    if (options.approve) context.approve = options.approve;
    if (options.reasoning) context.reasoning = options.reasoning;
    if (options.agentName) context.agentName = options.agentName;
    if (options.beforeTools) context.beforeTools = options.beforeTools;
    if (options.beforeTurnEnd) context.beforeTurnEnd = options.beforeTurnEnd;
    if (options.budget) context.budget = options.budget;
    this.#context = context;
  }

  /** The session the agent writes to. */
  get session(): SessionLog {
    return this.#context.session;
  }

  /** Token usage of the whole session (restored from the log, then kept up to date). */
  get usage(): Usage {
    return this.#usage;
  }

  /** The prompt contributions in force; plugins register theirs here. */
  get systemPrompt(): SystemPrompt {
    return this.#context.prompt;
  }

  /** True while a turn runs. */
  get running(): boolean {
    return this.#running !== undefined;
  }

  /** The interrupted turn found in the log, if {@link Agent.resume} has something to continue. */
  get interruptedTurn(): number | undefined {
    return this.#open?.turn;
  }

  /** Inputs waiting in a queue. */
  queued(queue: InboxQueue): readonly InboxItem[] {
    return this.#context.inbox.items(queue);
  }

  /**
   * Runs one turn for `input`, then any `next-turn` inputs queued meanwhile (each its own turn,
   * while turns complete). An interrupted turn left in the log is closed as `interrupted`
   * first; call {@link Agent.resume} instead to continue it. Resolves with the last turn's
   * result; failures of the model or tools are results, not exceptions.
   *
   * @throws an {@link AgentBusyError} when a turn is already running.
   * @example
   * ```ts
   * const result = await agent.run('Fix the failing test in src/math.ts');
   * if (result.reason !== 'completed') console.error(result.error?.message);
   * ```
   */
  async run(input: string, options: RunOptions = {}): Promise<TurnResult> {
    this.#enter();
    try {
      if (this.#open) this.#closeInterrupted(this.#open);
      const first = options.images?.length
        ? { content: input, images: options.images }
        : { content: input };
      const result = await this.#newTurn(first, options.signal);
      // Nothing queued (the usual case): no further turn, and no extra async layer.
      if (this.#context.inbox.size('next-turn') === 0) return result;
      return await this.#drain(result, options.signal);
    } finally {
      this.#running = undefined;
    }
  }

  /**
   * Queues an input. `next-step` enters the running turn before its next request (or the next
   * turn's first one); `next-turn` runs as its own turn after the current one. Recorded as
   * `agent/inbox/spliced`, so it survives a restart.
   */
  enqueue(input: string, where: InboxQueue = 'next-turn'): InboxItem {
    const item = this.#context.inbox.push(where, input);
    this.emit('queued', { queue: where, item, size: this.#context.inbox.size(where) });
    return item;
  }

  /**
   * Continues after a crash: an interrupted turn resumes where it stopped (a step that died
   * mid-stream is retried as a new attempt of the same step; tool calls without a result were
   * answered by the session on open), then queued `next-turn` inputs run. Resolves with
   * `undefined` when there is nothing to continue.
   *
   * @throws an {@link AgentBusyError} when a turn is already running.
   */
  async resume(options: RunOptions = {}): Promise<TurnResult | undefined> {
    this.#enter();
    try {
      let result: TurnResult | undefined;
      const open = this.#open;
      if (open) {
        this.#open = undefined;
        this.#running = open.turn;
        result = await runTurnLoop(this.#context, this.#resumePoint(open), options.signal);
      } else if (this.#context.inbox.size('next-turn') > 0) {
        const item = this.#context.inbox.items('next-turn')[0] as InboxItem;
        result = await this.#newTurn({ content: item.content, item }, options.signal);
      }
      return result && (await this.#drain(result, options.signal));
    } finally {
      this.#running = undefined;
    }
  }

  /**
   * Compacts the session now, as a user's `/compact [focus]` does: reason `manual`, with the
   * system prompt, tools and context window the next request would use. Without a compaction
   * engine it resolves `disabled` and changes nothing.
   *
   * @throws an {@link AgentBusyError} when a turn is running (compact between turns).
   * @example
   * ```ts
   * const outcome = await agent.compact({ focus: 'the parser bug' });
   * ```
   */
  async compact(
    options: { focus?: string; signal?: AbortSignal } = {},
  ): Promise<CompactionOutcome> {
    if (this.#running !== undefined) throw new AgentBusyError({ turn: this.#running });
    const { compaction, prompt, tools, session, contextWindow } = this.#context;
    if (!compaction) return { status: 'disabled', message: 'no compaction engine is configured' };
    const snapshot = prompt.assemble({ tools: tools.specs() });
    return compaction.compact({
      session,
      reason: 'manual',
      contextWindow,
      system: snapshot.system,
      tools: snapshot.tools,
      ...(options.focus ? { focus: options.focus } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /** Switches the model from the next request on (a new request prefix: the provider cache restarts). */
  setModel(model: ModelClient, modelId: string, contextWindow?: number): void {
    assertSpecificationVersion('ModelClient', model);
    this.#context.model = model;
    this.#context.modelId = modelId;
    if (contextWindow !== undefined) this.#context.contextWindow = contextWindow;
  }

  #enter(): void {
    if (this.#running !== undefined) throw new AgentBusyError({ turn: this.#running });
    this.#running = this.#lastTurn + 1;
  }

  async #drain(result: TurnResult, signal?: AbortSignal): Promise<TurnResult> {
    let last = result;
    const inbox = this.#context.inbox;
    while (last.reason === 'completed' && inbox.size('next-turn') > 0 && !signal?.aborted) {
      const item = inbox.items('next-turn')[0] as InboxItem;
      last = await this.#newTurn({ content: item.content, item }, signal);
    }
    return last;
  }

  /** Records the turn's start and input, then runs it (not async itself: one layer fewer). */
  #newTurn(
    input: { content: string; item?: InboxItem; images?: ImagePart[] },
    signal?: AbortSignal,
  ): Promise<TurnResult> {
    const { session, inbox } = this.#context;
    const turn = ++this.#lastTurn;
    this.#running = turn;
    session.append('turn/start', input.item ? { inboxId: input.item.id } : {}, { turn, step: 0 });
    const message: UserMessageBody = input.item
      ? {
          content: input.content,
          source: 'user',
          meta: { inboxId: input.item.id, queue: 'next-turn' },
        }
      : { content: input.content, source: 'user' };
    if (input.images) message.images = input.images;
    session.append('user/message', message, { turn, step: 0, surfaceOp: { op: 'append' } });
    if (input.item) inbox.consumed('next-turn', 1);
    return runTurnLoop(this.#context, { turn, step: 1, attempt: 1, started: false }, signal);
  }

  #closeInterrupted(open: OpenTurn): void {
    this.#open = undefined;
    this.#answerPending(open);
    this.#context.session.append(
      'turn/end',
      { reason: 'interrupted', steps: open.step },
      { turn: open.turn, step: open.step },
    );
  }

  /** Answers tool calls the session did not repair, so history stays valid for providers. */
  #answerPending(open: OpenTurn): void {
    const at = { turn: open.turn, step: open.step };
    for (const call of open.pendingCalls) {
      const body: ToolResultBody = {
        toolCallId: call.id,
        toolName: call.name,
        content: outcomeUnknownText('the process stopped'),
        isError: true,
        outcome: 'unknown',
      };
      this.#context.session.append('tool/result', body, { ...at, surfaceOp: { op: 'append' } });
    }
    open.pendingCalls = [];
    if (open.headerSeq !== undefined && !open.attemptRecorded) {
      const body: AttemptBody = {
        request: open.headerSeq,
        attempt: open.attempt,
        outcome: 'interrupted',
        message: 'the process stopped during this request',
      };
      this.#context.session.append('assistant/attempt', body, at);
      open.attemptRecorded = true;
    }
  }

  #resumePoint(open: OpenTurn): StepStart {
    this.#answerPending(open);
    const { session } = this.#context;
    const at = { turn: open.turn, step: open.step };
    if (open.phase === 'stream' && open.step > 0) {
      const attempt = open.attempt + 1;
      if (open.attempt > 0) session.append('llm/retry-started', { attempt, afterCrash: true }, at);
      return { turn: open.turn, step: open.step, attempt, started: true };
    }
    if (open.phase === 'tools') session.append('step/end', { interrupted: true }, at);
    return { turn: open.turn, step: open.step + 1, attempt: 1, started: false };
  }
}

/**
 * Creates an agent over a session. The session may be new or reopened: turn numbers,
 * inbox queues, runtime-context state and usage totals are restored from its log.
 *
 * @throws an {@link UnsupportedSpecificationError} when a collaborator has an unknown
 *   specificationVersion.
 * @example
 * ```ts
 * const agent = createAgent({ session, model, modelId: 'deepseek-v4-flash', tools: runtime });
 * agent.on('text-delta', ({ text }) => process.stdout.write(text));
 * const result = await agent.run('List the TODOs in src/');
 * ```
 */
export function createAgent(options: AgentOptions): Agent {
  return new Agent(options);
}
