import type { PostExecuteHook, ToolOutput, ToolResultBody, ToolResultMeta } from '@spine/protocol';
import {
  type ExecutedCall,
  isPromise,
  type MaybePromise,
  type PipelineState,
  type PreparedCall,
} from './pipeline.js';
import { messageOf, type ToolOutcome, truncateContent } from './results.js';

/** Runs post-execute hooks (in order, each may be async), then truncates and assembles the body. */
export function finalizeCall(
  state: PipelineState,
  prepared: PreparedCall,
  executed: ExecutedCall,
): MaybePromise<ToolResultBody> {
  const hooks = state.hooks.postExecute;
  if (hooks.length === 0)
    return assembleResult(state, prepared, executed.output, executed.outcome, executed.durationMs);
  return runPostHooks(state, prepared, executed, hooks, 0, executed.output, executed.outcome);
}

function runPostHooks(
  state: PipelineState,
  prepared: PreparedCall,
  executed: ExecutedCall,
  hooks: PostExecuteHook[],
  from: number,
  output: ToolOutput,
  outcome: ToolOutcome,
): MaybePromise<ToolResultBody> {
  for (let index = from; index < hooks.length; index++) {
    let next: MaybePromise<ToolOutput | undefined>;
    try {
      next = hooks[index]!(prepared, output, executed.context);
    } catch (error) {
      ({ output, outcome } = hookFailed(output, error));
      continue;
    }
    if (isPromise(next)) {
      const current = output;
      return next.then(
        (value) =>
          runPostHooks(state, prepared, executed, hooks, index + 1, value ?? current, outcome),
        (error: unknown) => {
          const failed = hookFailed(current, error);
          return runPostHooks(
            state,
            prepared,
            executed,
            hooks,
            index + 1,
            failed.output,
            failed.outcome,
          );
        },
      );
    }
    output = next ?? output;
  }
  return assembleResult(state, prepared, output, outcome, executed.durationMs);
}

function hookFailed(
  output: ToolOutput,
  error: unknown,
): { output: ToolOutput; outcome: ToolOutcome } {
  return {
    output: {
      ...output,
      content: `${output.content}\n[a post-execute hook failed: ${messageOf(error)}]`,
      isError: true,
    },
    outcome: 'error',
  };
}

/** Builds the `tool/result` body: truncation, metadata (params, duration) and the outcome. */
export function assembleResult(
  state: PipelineState,
  prepared: PreparedCall,
  output: ToolOutput,
  outcome: ToolOutcome,
  durationMs: number,
): ToolResultBody {
  const meta: ToolResultMeta = output.meta
    ? { ...output.meta, params: prepared.args, durationMs }
    : { params: prepared.args, durationMs };
  let content = output.content;
  if (content.length > state.maxResultChars) {
    const cut = truncateContent(content, state.maxResultChars);
    content = cut.content;
    meta.truncated = true;
    meta.originalLength = output.meta?.originalLength ?? cut.originalLength;
  }
  const isError = output.isError === true || outcome !== 'ok';
  const body: ToolResultBody = {
    toolCallId: prepared.call.id,
    toolName: prepared.call.name,
    content,
    isError,
    outcome: isError && outcome === 'ok' ? 'error' : outcome,
    meta,
  };
  if (output.images && output.images.length > 0) body.images = output.images;
  return body;
}
