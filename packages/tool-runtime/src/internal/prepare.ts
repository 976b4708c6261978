import { resolve } from 'node:path';
import type {
  JsonValue,
  PreExecuteVerdict,
  ToolApprovalBody,
  ToolCallPart,
  ToolDefinition,
  ToolExecutionContext,
  ToolOutput,
  ToolPermissions,
  ToolResultBody,
} from '@spine/protocol';
import { escalationOf, type PrecheckRefusal } from './approval-gate.js';
import {
  type BatchContext,
  isPromise,
  type MaybePromise,
  type PipelineState,
  type PreparedCall,
} from './pipeline.js';
import { errorResult, messageOf } from './results.js';
import { MAX_ARGUMENT_DEPTH, nestsDeeperThan } from './validate.js';

/** True when `value` is a finished result rather than a call to run. */
export function isResult<T extends object>(value: T | ToolResultBody): value is ToolResultBody {
  return 'content' in value;
}

/** Parses, finds, validates, runs pre-hooks and approval. Returns a result for calls that will not run. */
export function prepareCall(
  state: PipelineState,
  call: ToolCallPart,
  batch: BatchContext,
): MaybePromise<PreparedCall | ToolResultBody> {
  const entry = state.tools.get(call.name);
  if (!entry || (state.visibility && !state.visible(batch.agent, entry.tool))) {
    const names = [...state.tools.values()]
      .filter((e) => state.visible(batch.agent, e.tool))
      .map((e) => e.tool.spec.name);
    return errorResult(
      call,
      'not-found',
      `Unknown tool \`${call.name}\`. Available tools: ${names.join(', ') || '(none)'}.`,
    );
  }
  let args: JsonValue;
  try {
    args = JSON.parse(call.arguments) as JsonValue;
  } catch (error) {
    // Some providers send an empty string for a call without arguments.
    if (call.arguments.trim() === '') args = {};
    else
      return errorResult(
        call,
        'invalid',
        `Invalid arguments for tool \`${call.name}\`: not valid JSON (${messageOf(error)}). Send one JSON object matching the tool's parameters.`,
      );
  }
  // Before the schema (ajv recurses) and before anything runs: a result must be recordable.
  // Each level takes two characters (`[` and `]`), so shorter text cannot nest too deeply.
  if (
    call.arguments.length > 2 * MAX_ARGUMENT_DEPTH &&
    typeof args === 'object' &&
    args !== null &&
    nestsDeeperThan(args, MAX_ARGUMENT_DEPTH)
  ) {
    // No `params` in the metadata: the arguments themselves are what the log cannot hold.
    return errorResult(
      call,
      'invalid',
      `Invalid arguments for tool \`${call.name}\`: objects and arrays nest deeper than ${MAX_ARGUMENT_DEPTH} levels. Send flatter arguments matching the tool's parameters.`,
    );
  }
  const problem = entry.validate(args);
  if (problem !== undefined) {
    return errorResult(
      call,
      'invalid',
      `Invalid arguments for tool \`${call.name}\`: ${problem}. Fix the arguments and call the tool again.`,
      { params: args },
    );
  }
  const tool = entry.tool as ToolDefinition<JsonValue>;
  let safe = false;
  let paths: readonly string[] = NO_PATHS;
  try {
    safe =
      typeof tool.isConcurrencySafe === 'function'
        ? tool.isConcurrencySafe(args)
        : tool.isConcurrencySafe === true;
    if (tool.mutatedPaths) paths = tool.mutatedPaths(args).map((path) => resolve(state.cwd, path));
  } catch {
    safe = false;
  }
  const context: ToolExecutionContext = {
    callId: call.id,
    signal: batch.signal,
    cwd: state.cwd,
    sandbox: state.sandbox,
    services: state.services,
    // Declared up front (even when unset) so every context has one shape for the JIT.
    grantedPermissions: undefined,
    onProgress: undefined,
  };
  const prepared: PreparedCall = {
    toolCallId: call.id,
    toolName: call.name,
    args,
    tool: entry.tool,
    permissions: tool.permissions ?? NO_PERMISSIONS,
    sandbox: state.sandbox,
    call,
    entry,
    safe,
    paths,
    context,
    escalation: undefined,
    hookVerdict: undefined,
    granted: undefined,
  };
  if (entry.escalates) {
    const escalation = escalationOf(args);
    if (escalation) prepared.escalation = escalation;
  }
  const hooks = state.hooks.preExecute;
  return hooks.length === 0
    ? approveCall(state, prepared, batch, undefined)
    : runPreHooks(state, prepared, batch, hooks, 0, undefined);
}

/**
 * The tool's precheck as the gate calls it just before asking a person: the refusal (the tool's
 * own error output) or undefined. A precheck that throws refuses with its message.
 */
function precheckOf(prepared: PreparedCall): (() => Promise<ToolOutput | undefined>) | undefined {
  const tool = prepared.tool as ToolDefinition<JsonValue>;
  const precheck = tool.precheck;
  if (!precheck) return undefined;
  return async () => {
    try {
      const output = await precheck(prepared.args, prepared.context);
      return output?.isError ? output : undefined;
    } catch (error) {
      return { content: messageOf(error), isError: true };
    }
  };
}
type Verdict = PreExecuteVerdict | undefined;
const NO_PERMISSIONS: ToolPermissions = Object.freeze({});
/**
 * The paths of a call that mutates none: one shared array rather than one per call (typed
 * read-only and never written; not frozen, since a frozen array has elements of another kind).
 */
const NO_PATHS: readonly string[] = [];

function runPreHooks(
  state: PipelineState,
  prepared: PreparedCall,
  batch: BatchContext,
  hooks: PipelineState['hooks']['preExecute'],
  from: number,
  verdict: 'allow' | 'ask' | undefined,
): MaybePromise<PreparedCall | ToolResultBody> {
  for (let index = from; index < hooks.length; index++) {
    let answer: MaybePromise<Verdict>;
    try {
      answer = hooks[index]!(prepared, prepared.context);
    } catch (error) {
      return hookFailed(prepared, error);
    }
    if (isPromise(answer)) {
      return answer.then(
        (settled) => {
          const next = applyVerdict(prepared, batch, settled, verdict);
          return typeof next === 'object'
            ? next
            : runPreHooks(state, prepared, batch, hooks, index + 1, next);
        },
        (error: unknown) => hookFailed(prepared, error),
      );
    }
    const next = applyVerdict(prepared, batch, answer, verdict);
    if (typeof next === 'object') return next;
    verdict = next;
  }
  return approveCall(state, prepared, batch, verdict);
}

function hookFailed(prepared: PreparedCall, error: unknown): ToolResultBody {
  return errorResult(
    prepared.call,
    'error',
    `A pre-execute hook failed, so the call did not run: ${messageOf(error)}`,
    { params: prepared.args },
  );
}

/** Folds one hook's answer in: a deny ends the chain (returns its result), ask beats allow. */
function applyVerdict(
  prepared: PreparedCall,
  batch: BatchContext,
  answer: Verdict,
  verdict: 'allow' | 'ask' | undefined,
): ToolResultBody | 'allow' | 'ask' | undefined {
  if (answer?.decision === 'deny') {
    const { id, name } = prepared.call;
    batch.emit({
      type: 'approval',
      body: {
        toolCallId: id,
        toolName: name,
        decision: 'deny',
        by: 'hook',
        scope: 'once',
        reason: answer.reason,
      },
    });
    return errorResult(prepared.call, 'denied', `Tool call denied by a hook: ${answer.reason}`, {
      params: prepared.args,
    });
  }
  if (answer?.decision === 'ask') return 'ask';
  if (answer?.decision === 'allow' && verdict === undefined) return 'allow';
  return verdict;
}

function approveCall(
  state: PipelineState,
  prepared: PreparedCall,
  batch: BatchContext,
  hookVerdict: 'allow' | 'ask' | undefined,
): MaybePromise<PreparedCall | ToolResultBody> {
  if (hookVerdict) prepared.hookVerdict = hookVerdict;
  const decided = state.gate.decide(
    prepared.toolCallId,
    prepared,
    batch.approve,
    batch.signal,
    precheckOf(prepared),
  );
  return isPromise(decided)
    ? decided.then((body) => applyGate(prepared, batch, body))
    : applyGate(prepared, batch, decided);
}

function applyGate(
  prepared: PreparedCall,
  batch: BatchContext,
  body: ToolApprovalBody | PrecheckRefusal,
): PreparedCall | ToolResultBody {
  // Refused by the tool's precheck before anyone was asked: the tool's error, as if it had run.
  if ('refused' in body)
    return errorResult(prepared.call, 'error', body.refused.content, {
      ...body.refused.meta,
      params: prepared.args,
    });
  batch.emit({ type: 'approval', body });
  if (body.decision !== 'allow') {
    const reason = body.reason ?? 'no reason given';
    return errorResult(
      prepared.call,
      'denied',
      `Tool call denied (${body.by}): ${reason}. Do not repeat the same call; choose another approach or ask the user.`,
      { params: prepared.args },
    );
  }
  // Only the approval layer grants an escalation, and it only allows one through a person's answer.
  if (prepared.escalation) {
    prepared.granted = prepared.escalation.permissions;
    prepared.context.grantedPermissions = prepared.escalation.permissions;
  }
  return prepared;
}
