// A running session's live events as ACP updates: streamed text and reasoning, tool calls with
// their progress and results, usage after each request, title changes. Translation only: what
// happened is in the log, and `session/load` rebuilds the same picture from it (replay.ts).
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { AgentSession } from '@spine/harness';
import type {
  AssistantMessageBody,
  ChildStartBody,
  SessionEvent,
  ToolResultBody,
} from '@spine/protocol';
import { planUpdate } from './plan.js';
import { ChildCalls } from './subagents.js';
import {
  parseArguments,
  textContent,
  toolCallOf,
  toolResultUpdate,
  withChild,
} from './tool-calls.js';
import { usageUpdate } from './usage.js';

/** Streamed command output kept per call (the tail; the full result arrives with the result). */
const MAX_LIVE_OUTPUT = 64 * 1024;

/** Forwards `active`'s live events to `send`; returns the function that stops it. */
export function attachLive(
  active: AgentSession,
  cwd: string,
  send: (update: SessionUpdate) => void,
): () => void {
  const { agent, session } = active;
  const calls = new Map<string, { name: string; arguments: string; output: string }>();
  const children = new ChildCalls();
  // The session's cost so far (restored from the log), then each request's on top.
  let cost: number | undefined = agent.usage.costUsd;
  const onText = (event: { turn: number; step: number; text: string }): void =>
    send({
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: event.text },
      messageId: `spine-live-${event.turn}-${event.step}`,
    });
  const onReasoning = (event: { turn: number; step: number; text: string }): void =>
    send({
      sessionUpdate: 'agent_thought_chunk',
      content: { type: 'text', text: event.text },
      messageId: `spine-live-${event.turn}-${event.step}-thought`,
    });
  const onCall = (event: { call: { id: string; name: string; arguments: string } }): void => {
    calls.set(event.call.id, { ...event.call, output: '' });
    send({ sessionUpdate: 'tool_call', ...toolCallOf(cwd, event.call) });
  };
  const onProgress = (event: { toolCallId: string; message?: string }): void => {
    const call = calls.get(event.toolCallId);
    if (call?.name === 'task' && event.message !== undefined) {
      const update = children.progress(event.toolCallId, event.message);
      if (update) send(update);
      return;
    }
    if (call?.name !== 'bash' || event.message === undefined) return;
    call.output = (call.output + event.message).slice(-MAX_LIVE_OUTPUT);
    const command = parseArguments(call.arguments).command;
    send({
      sessionUpdate: 'tool_call_update',
      toolCallId: event.toolCallId,
      content: [textContent(`$ ${typeof command === 'string' ? command : ''}\n${call.output}`)],
    });
  };
  const onEvent = (event: SessionEvent): void => {
    if (event.type === 'tool/started') {
      const { toolCallId } = event.body as { toolCallId: string };
      send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' });
    } else if (event.type === 'tool/result') {
      const result = event.body as ToolResultBody;
      const call = calls.get(result.toolCallId);
      calls.delete(result.toolCallId);
      send(withChild(toolResultUpdate(cwd, call, result), children.end(result.toolCallId)));
      const plan = planUpdate(event);
      if (plan) send(plan);
    } else if (event.type === 'agent/child/start') {
      send(children.start(event.body as ChildStartBody));
    } else if (event.type === 'assistant/message') {
      const { usage } = event.body as AssistantMessageBody;
      if (!usage) return;
      if (usage.costUsd !== undefined) cost = (cost ?? 0) + usage.costUsd;
      send(usageUpdate(usage, active.model.contextWindow, cost));
    } else if (event.type === 'session/title') {
      send({
        sessionUpdate: 'session_info_update',
        title: (event.body as { title: string }).title,
      });
    }
  };
  agent.on('text-delta', onText);
  agent.on('reasoning-delta', onReasoning);
  agent.on('tool-call', onCall);
  agent.on('tool-progress', onProgress);
  const unsubscribe = session.subscribe(onEvent);
  return () => {
    agent.off('text-delta', onText);
    agent.off('reasoning-delta', onReasoning);
    agent.off('tool-call', onCall);
    agent.off('tool-progress', onProgress);
    unsubscribe();
  };
}
