// Concurrent execution, sequential commit: safe calls share a bounded pool, every other call is
// an exclusive barrier, and results (with their post-processing) are committed in call order.
import { setMaxListeners } from 'node:events';
import type { ToolCallPart, ToolResultBody, ToolRunOptions } from '@spine/protocol';
import {
  type BatchContext,
  type ExecutedCall,
  type PipelineState,
  type PreparedCall,
  assembleResult,
  executeCall,
  finalizeCall,
  isResult,
  prepareCall,
} from './pipeline.js';
import { errorResult } from './results.js';

const NOT_STARTED = 'Not started: the run was aborted before this call began. Retry it if it is still needed.';

/** Runs one batch; see `ToolScheduler.run`. */
export async function runBatch(
  state: PipelineState,
  calls: readonly ToolCallPart[],
  options: ToolRunOptions,
  maxConcurrency: number,
): Promise<ToolResultBody[]> {
  const results: ToolResultBody[] = new Array(calls.length);
  const controller = new AbortController();
  // One listener per running call plus the tools' own: a large batch legitimately exceeds 10.
  setMaxListeners(0, controller.signal);
  const external = options.signal;
  const forward = (): void => controller.abort(external?.reason);
  if (external?.aborted) forward();
  else external?.addEventListener('abort', forward, { once: true });
  let emitFailure: { error: unknown } | undefined;
  const onEvent = options.onEvent;
  const batch: BatchContext = {
    agent: options.agent,
    signal: controller.signal,
    approve: options.approve,
    emit: (event) => {
      if (!onEvent) return;
      try {
        onEvent(event);
      } catch (error) {
        // The caller could not record an event; stop the batch and rethrow after it settles.
        emitFailure ??= { error };
        controller.abort(error);
      }
    },
  };
  let chain: Promise<void> = Promise.resolve();
  // Post-processing runs inside the chain, so it too happens in call order.
  const commit = (index: number, body: ToolResultBody | (() => Promise<ToolResultBody>)): void => {
    chain = chain.then(async () => {
      const final = typeof body === 'function' ? await body() : body;
      results[index] = final;
      batch.emit({ type: 'result', body: final });
    });
  };
  const running = new Set<Promise<unknown>>();
  try {
    for (let index = 0; index < calls.length; index++) {
      const call = calls[index]!;
      if (controller.signal.aborted) {
        commit(index, errorResult(call, 'not-started', NOT_STARTED));
        continue;
      }
      const prepared = await prepareCall(state, call, batch);
      if (isResult(prepared)) {
        commit(index, prepared);
        continue;
      }
      if (prepared.safe) {
        while (running.size >= maxConcurrency) await Promise.race(running);
      } else {
        await Promise.all(running);
        await chain;
      }
      if (controller.signal.aborted) {
        commit(index, errorResult(call, 'not-started', NOT_STARTED, { params: prepared.args }));
        continue;
      }
      batch.emit({ type: 'started', toolCallId: call.id, toolName: call.name, arguments: call.arguments });
      const execution = executeCall(state, prepared, batch);
      commit(index, async () => finish(state, prepared, await execution));
      if (prepared.safe) {
        const tracked = execution.finally(() => running.delete(tracked));
        running.add(tracked);
      } else {
        await execution;
        await chain;
      }
    }
    await Promise.all(running);
    await chain;
  } finally {
    external?.removeEventListener('abort', forward);
  }
  if (emitFailure) throw emitFailure.error;
  return results;
}

function finish(state: PipelineState, prepared: PreparedCall, executed: ExecutedCall): ToolResultBody | Promise<ToolResultBody> {
  if (state.hooks.postExecute.length === 0) {
    return assembleResult(state, prepared, executed.output, executed.outcome, executed.durationMs);
  }
  return finalizeCall(state, prepared, executed);
}
