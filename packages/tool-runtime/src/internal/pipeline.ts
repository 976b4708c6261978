// The per-call pipeline: parse → find → validate → pre-execute hooks → approval → execute
// chain (path locks, wrappers, timeout and abort) → post-execute hooks → truncation and metadata.
import { resolve } from 'node:path';
import type {
  JsonValue,
  SandboxMode,
  ToolCallPart,
  ToolDefinition,
  ToolExecutionContext,
  ToolHookCall,
  ToolHooks,
  ToolOutput,
  ToolResultBody,
  ToolResultMeta,
  ToolRunEvent,
} from '@spine/protocol';
import type { ApprovalGate, Approver } from './approval-gate.js';
import { escalationOf } from './approval-gate.js';
import type { KeyedLock } from './keyed-lock.js';
import { type ToolOutcome, errorResult, messageOf, truncateContent } from './results.js';
import type { ArgumentValidator } from './validate.js';

/** A registered tool with its compiled validator. */
export interface RegisteredTool {
  tool: ToolDefinition<never>;
  validate: ArgumentValidator;
}

/** Everything the pipeline reads from the runtime (live: `sandbox` and the gate may change). */
export interface PipelineState {
  cwd: string;
  sandbox: SandboxMode;
  tools: Map<string, RegisteredTool>;
  hooks: Required<ToolHooks>;
  gate: ApprovalGate;
  visible(agent: string | undefined, tool: ToolDefinition<never>): boolean;
  maxResultChars: number;
  abortGraceMs: number;
  services: { [key: string]: unknown };
  pathLocks: KeyedLock;
}

/** A call ready to run. */
export interface PreparedCall {
  call: ToolCallPart;
  hookCall: ToolHookCall;
  entry: RegisteredTool;
  args: JsonValue;
  safe: boolean;
  paths: string[];
  granted?: { [key: string]: JsonValue };
}

/** What the batch gives the pipeline. */
export interface BatchContext {
  agent: string | undefined;
  signal: AbortSignal;
  emit: (event: ToolRunEvent) => void;
  approve: Approver | undefined;
}

const EMPTY_ARGS = '{}';

function resultOrPrepared(value: PreparedCall | ToolResultBody): value is ToolResultBody {
  return 'toolCallId' in value;
}
export { resultOrPrepared as isResult };

/** Parses, finds, validates, runs pre-hooks and approval. Returns a result for calls that will not run. */
export function prepareCall(
  state: PipelineState,
  call: ToolCallPart,
  batch: BatchContext,
): PreparedCall | ToolResultBody | Promise<PreparedCall | ToolResultBody> {
  const entry = state.tools.get(call.name);
  if (!entry || !state.visible(batch.agent, entry.tool)) {
    const names = [...state.tools.values()].filter((e) => state.visible(batch.agent, e.tool)).map((e) => e.tool.spec.name);
    return errorResult(call, 'not-found', `Unknown tool \`${call.name}\`. Available tools: ${names.join(', ') || '(none)'}.`);
  }
  let args: JsonValue;
  try {
    args = JSON.parse(call.arguments.trim() === '' ? EMPTY_ARGS : call.arguments) as JsonValue;
  } catch (error) {
    return errorResult(call, 'invalid', `Invalid arguments for tool \`${call.name}\`: not valid JSON (${messageOf(error)}). Send one JSON object matching the tool's parameters.`);
  }
  const problem = entry.validate(args);
  if (problem !== undefined) {
    return errorResult(call, 'invalid', `Invalid arguments for tool \`${call.name}\`: ${problem}. Fix the arguments and call the tool again.`, { params: args });
  }
  const tool = entry.tool as ToolDefinition<JsonValue>;
  const hookCall: ToolHookCall = { toolCallId: call.id, toolName: call.name, args, tool: entry.tool };
  let safe = false;
  let paths: string[] = [];
  try {
    safe = typeof tool.isConcurrencySafe === 'function' ? tool.isConcurrencySafe(args) : tool.isConcurrencySafe === true;
    paths = tool.mutatedPaths ? tool.mutatedPaths(args).map((path) => resolve(state.cwd, path)) : [];
  } catch {
    safe = false;
  }
  const prepared: PreparedCall = { call, hookCall, entry, args, safe, paths };
  if (state.hooks.preExecute.length === 0) return approveCall(state, prepared, batch, undefined);
  return runPreHooks(state, prepared, batch);
}

async function runPreHooks(state: PipelineState, prepared: PreparedCall, batch: BatchContext): Promise<PreparedCall | ToolResultBody> {
  const context = contextFor(state, prepared, batch.signal, undefined);
  let verdict: 'allow' | 'ask' | undefined;
  for (const hook of [...state.hooks.preExecute]) {
    let answer: Awaited<ReturnType<typeof hook>>;
    try {
      answer = await hook(prepared.hookCall, context);
    } catch (error) {
      return errorResult(prepared.call, 'error', `A pre-execute hook failed, so the call did not run: ${messageOf(error)}`, { params: prepared.args });
    }
    if (answer?.decision === 'deny') {
      batch.emit({ type: 'approval', body: { toolCallId: prepared.call.id, toolName: prepared.call.name, decision: 'deny', by: 'hook', scope: 'once', reason: answer.reason } });
      return errorResult(prepared.call, 'denied', `Tool call denied by a hook: ${answer.reason}`, { params: prepared.args });
    }
    if (answer?.decision === 'ask') verdict = 'ask';
    else if (answer?.decision === 'allow' && verdict === undefined) verdict = 'allow';
  }
  return approveCall(state, prepared, batch, verdict);
}

function approveCall(
  state: PipelineState,
  prepared: PreparedCall,
  batch: BatchContext,
  hookVerdict: 'allow' | 'ask' | undefined,
): PreparedCall | ToolResultBody | Promise<PreparedCall | ToolResultBody> {
  const check: Parameters<ApprovalGate['decide']>[1] = {
    toolName: prepared.call.name,
    args: prepared.args,
    permissions: prepared.entry.tool.permissions ?? {},
    sandbox: state.sandbox,
  };
  const escalation = escalationOf(prepared.args);
  if (escalation) check.escalation = escalation;
  if (hookVerdict) check.hookVerdict = hookVerdict;
  const decided = state.gate.decide(prepared.call.id, check, batch.approve, batch.signal);
  const finish = (gate: Awaited<typeof decided>): PreparedCall | ToolResultBody => {
    batch.emit({ type: 'approval', body: gate.body });
    if (!gate.allowed) {
      return errorResult(prepared.call, 'denied', `Tool call denied (${gate.body.by}): ${gate.body.reason ?? 'no reason given'}. Do not repeat the same call; choose another approach or ask the user.`, { params: prepared.args });
    }
    if (gate.granted) prepared.granted = gate.granted;
    return prepared;
  };
  return decided instanceof Promise ? decided.then(finish) : finish(decided);
}

function contextFor(state: PipelineState, prepared: PreparedCall, signal: AbortSignal, emit: BatchContext['emit'] | undefined): ToolExecutionContext {
  const context: ToolExecutionContext = { callId: prepared.call.id, signal, cwd: state.cwd, sandbox: state.sandbox, services: state.services };
  if (prepared.granted) context.grantedPermissions = prepared.granted;
  if (emit) {
    const toolCallId = prepared.call.id;
    context.onProgress = (progress) => emit({ type: 'progress', toolCallId, ...progress });
  }
  return context;
}

/** What execution produced, before post-processing. */
export interface ExecutedCall {
  output: ToolOutput;
  outcome: ToolOutcome;
  durationMs: number;
  context: ToolExecutionContext;
}

/** Runs the execute chain under the path locks, with the tool's timeout and the batch signal. */
export async function executeCall(state: PipelineState, prepared: PreparedCall, batch: BatchContext): Promise<ExecutedCall> {
  const started = performance.now();
  const tool = prepared.entry.tool as ToolDefinition<JsonValue>;
  const timeoutMs = tool.timeoutMs;
  let signal = batch.signal;
  let timer: NodeJS.Timeout | undefined;
  let unlink: (() => void) | undefined;
  let timedOut = false;
  if (timeoutMs !== undefined) {
    const controller = new AbortController();
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    const forward = (): void => controller.abort(batch.signal.reason);
    if (batch.signal.aborted) forward();
    else batch.signal.addEventListener('abort', forward, { once: true });
    unlink = () => batch.signal.removeEventListener('abort', forward);
    signal = controller.signal;
  }
  const context = contextFor(state, prepared, signal, batch.emit);
  const wrappers = state.hooks.execute.length === 0 ? undefined : [...state.hooks.execute];
  const invoke = (index: number): Promise<ToolOutput> =>
    wrappers && index < wrappers.length
      ? wrappers[index]!(prepared.hookCall, context, () => invoke(index + 1))
      : tool.execute(prepared.args, context);
  let run: Promise<ToolOutput>;
  try {
    run = prepared.paths.length > 0 ? state.pathLocks.run(prepared.paths, () => invoke(0)) : invoke(0);
  } catch (error) {
    run = Promise.reject(error);
  }
  let output: ToolOutput | undefined;
  let failure: unknown;
  let settled = false;
  try {
    const guarded = run.then(
      (value) => {
        settled = true;
        output = value;
      },
      (error: unknown) => {
        settled = true;
        failure = error;
      },
    );
    if (signal.aborted && !settled) await graceAfterAbort(guarded, state.abortGraceMs);
    else await raceAbort(guarded, signal, state.abortGraceMs);
  } catch (error) {
    failure = error;
    settled = true;
  } finally {
    if (timer) clearTimeout(timer);
    unlink?.();
  }
  const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
  const stopped = signal.aborted;
  const stopWord: ToolOutcome = timedOut ? 'timeout' : 'aborted';
  if (!settled) {
    const why = timedOut ? `timed out after ${timeoutMs} ms` : 'was aborted';
    return { output: { content: `The tool ${why} and did not stop within ${state.abortGraceMs} ms; its effects are unknown. Check the state before retrying.`, isError: true }, outcome: stopWord, durationMs, context };
  }
  if (output === undefined) {
    const text = stopped ? `The tool ${timedOut ? `timed out after ${timeoutMs} ms` : 'was aborted'}: ${messageOf(failure)}` : `Tool failed: ${messageOf(failure)}`;
    return { output: { content: text, isError: true }, outcome: stopped ? stopWord : 'error', durationMs, context };
  }
  if (stopped) {
    const note = timedOut ? `[timed out after ${timeoutMs} ms]` : '[aborted]';
    return { output: { ...output, content: `${output.content}\n${note}`, isError: true }, outcome: stopWord, durationMs, context };
  }
  return { output, outcome: output.isError ? 'error' : 'ok', durationMs, context };
}

function raceAbort(work: Promise<void>, signal: AbortSignal, graceMs: number): Promise<void> {
  return new Promise<void>((resolveRace) => {
    const onAbort = (): void => {
      graceAfterAbort(work, graceMs).then(resolveRace);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolveRace();
    });
  });
}

function graceAfterAbort(work: Promise<void>, graceMs: number): Promise<void> {
  return new Promise<void>((resolveGrace) => {
    const timer = setTimeout(resolveGrace, graceMs);
    work.then(() => {
      clearTimeout(timer);
      resolveGrace();
    });
  });
}

/** Runs post-execute hooks, truncates and assembles the `tool/result` body. */
export async function finalizeCall(state: PipelineState, prepared: PreparedCall, executed: ExecutedCall): Promise<ToolResultBody> {
  let output = executed.output;
  let outcome = executed.outcome;
  for (const hook of [...state.hooks.postExecute]) {
    try {
      output = (await hook(prepared.hookCall, output, executed.context)) ?? output;
    } catch (error) {
      output = { ...output, content: `${output.content}\n[a post-execute hook failed: ${messageOf(error)}]`, isError: true };
      outcome = 'error';
    }
  }
  return assembleResult(state, prepared, output, outcome, executed.durationMs);
}

/** Builds the result body without post hooks (the fast path). */
export function assembleResult(state: PipelineState, prepared: PreparedCall, output: ToolOutput, outcome: ToolOutcome, durationMs: number): ToolResultBody {
  const cut = truncateContent(output.content, state.maxResultChars);
  const meta: ToolResultMeta = { ...output.meta, params: prepared.args, durationMs };
  if (cut.truncated) {
    meta.truncated = true;
    meta.originalLength = output.meta?.originalLength ?? cut.originalLength;
  }
  const isError = output.isError === true || outcome !== 'ok';
  return { toolCallId: prepared.call.id, toolName: prepared.call.name, content: cut.content, isError, outcome: isError && outcome === 'ok' ? 'error' : outcome, meta };
}
