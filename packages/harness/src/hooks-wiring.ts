// The user hooks that sit around the agent rather than its tools (issue 38): every hook run is
// recorded (`hook/run`); `user-prompt-submit` may block or rewrite a prompt before its turn;
// `permission-request` may allow or deny before a person is asked (failing closed), and
// `notification` tells a script the agent waits for a person; `post-compact` follows a
// compaction. (`subagent-start`/`-stop` fire in agents/wiring.ts, `session-end` in
// agent-session.ts.)

import type { Agent } from '@spine/agent-loop';
import type { ApprovalRequest, JsonValue, SessionLog, ToolRunOptions } from '@spine/protocol';
import type { ShellHooks } from '@spine/tool-runtime';
import { PromptBlockedError } from './errors.js';

/** Records every hook run in `session` as `hook/run` (a closed session records nothing). */
export function recordHookRuns(
  session: SessionLog,
): (record: import('@spine/protocol').HookRunBody) => void {
  return (record) => {
    try {
      session.append('hook/run', record);
    } catch {
      // The session is closed or failing: the hook's own effect stands, its record is lost.
    }
  };
}

/**
 * Wraps `approve` with the `permission-request` hooks (when configured): a hook's deny answers
 * without asking (recorded `by: "hook:permission-request"`), and so does its allow, except for escalations and protected writes (a person's
 * answer only); otherwise `notification` fires and the person is asked (or, with no person, the
 * call is denied).
 */
export function approveWithHooks(
  hooks: ShellHooks,
  approve: ToolRunOptions['approve'],
): ToolRunOptions['approve'] {
  if (!hooks.has('permission-request') && !hooks.has('notification')) return approve;
  return async (request: ApprovalRequest, options) => {
    if (hooks.has('permission-request')) {
      const payload: Record<string, JsonValue> = {
        toolName: request.toolName,
        toolCallId: request.toolCallId,
        args: request.args,
        reason: request.reason,
      };
      const decision = await hooks.decide('permission-request', payload);
      // The log names the hook as the decider (`by`), with its reason.
      const by = 'hook:permission-request';
      if (decision?.decision === 'deny') return { answer: 'deny', by, reason: decision.reason };
      // Escalations and protected writes need a person's answer: a hook's allow does not count.
      const personOnly = request.personOnly === true || request.escalation !== undefined;
      if (decision?.decision === 'allow' && !personOnly)
        return { answer: 'once', by, reason: decision.reason };
    }
    if (!approve) return 'deny';
    await hooks.fire('notification', {
      kind: 'permission',
      message: `Spine asks for permission to run ${request.toolName}: ${request.reason}`,
    });
    return approve(request, options);
  };
}

/** Runs `user-prompt-submit` hooks before each `agent.run`, and `post-compact` after compactions. */
export function wireAgentHooks(agent: Agent, hooks: ShellHooks): void {
  if (hooks.has('user-prompt-submit')) {
    const run = agent.run.bind(agent);
    agent.run = async (input, runOptions) => {
      const decision = await hooks.decide('user-prompt-submit', { prompt: input });
      if (decision?.decision === 'block') throw new PromptBlockedError({ reason: decision.reason });
      return run(decision?.decision === 'rewrite' ? decision.prompt : input, runOptions);
    };
  }
  if (hooks.has('post-compact')) {
    const compact = agent.compact.bind(agent);
    const fire = async (outcome: import('@spine/protocol').CompactionOutcome): Promise<void> => {
      if (outcome.status !== 'compacted') return;
      const payload: Record<string, JsonValue> = {};
      if (outcome.compactionId !== undefined) payload.compactionId = outcome.compactionId;
      if (outcome.tokensBefore !== undefined) payload.tokensBefore = outcome.tokensBefore;
      if (outcome.tokensAfter !== undefined) payload.tokensAfter = outcome.tokensAfter;
      await hooks.fire('post-compact', payload);
    };
    // Manual compactions complete before `compact` resolves; automatic ones are reported by the
    // agent's `compaction` event while the turn goes on.
    agent.compact = async (options) => {
      const outcome = await compact(options);
      await fire(outcome);
      return outcome;
    };
    agent.on('compaction', ({ outcome }) => {
      void fire(outcome);
    });
  }
}
