// `session/load`: the session's log as the updates a live turn sent, in log order. A pure fold
// over events (plus the workspace path and the context size), so two loads of the same log are
// byte-identical. Streamed: only the open tool calls are held, not the history.
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import {
  type AssistantMessageBody,
  type ChildStartBody,
  notStartedText,
  outcomeUnknownText,
  type SessionEvent,
  type ToolResultBody,
  type UserMessageBody,
} from '@spine/protocol';
import { planUpdate } from './plan.js';
import { ChildCalls } from './subagents.js';
import {
  OUTCOME_UNKNOWN_META,
  textContent,
  toolCallOf,
  toolResultUpdate,
  withChild,
} from './tool-calls.js';
import { usageUpdate } from './usage.js';

/** The message id of what event `seq` recorded (stable across loads). */
export function messageIdOf(seq: number, part?: 'thought'): string {
  return part ? `spine-${seq}-${part}` : `spine-${seq}`;
}

/** Folds events into updates; call {@link ReplayFold.end} after the last event. */
export class ReplayFold {
  readonly #cwd: string;
  readonly #contextWindow: number;
  readonly #calls = new Map<string, { name: string; arguments: string; started: boolean }>();
  readonly #children = new ChildCalls();
  #cost: number | undefined;

  constructor(options: { cwd: string; contextWindow: number }) {
    this.#cwd = options.cwd;
    this.#contextWindow = options.contextWindow;
  }

  /** The updates one event stands for (often none). */
  next(event: SessionEvent): SessionUpdate[] {
    switch (event.type) {
      case 'user/message': {
        const body = event.body as UserMessageBody;
        if (body.source !== 'user') return [];
        const content = { type: 'text' as const, text: body.content };
        return [
          { sessionUpdate: 'user_message_chunk', content, messageId: messageIdOf(event.seq) },
        ];
      }
      case 'assistant/message':
        return this.#assistant(event.seq, event.body as AssistantMessageBody);
      case 'tool/started': {
        const { toolCallId } = event.body as { toolCallId: string };
        const call = this.#calls.get(toolCallId);
        if (call) call.started = true;
        return [{ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' }];
      }
      case 'tool/result': {
        const result = event.body as ToolResultBody;
        const call = this.#calls.get(result.toolCallId);
        this.#calls.delete(result.toolCallId);
        const update = toolResultUpdate(this.#cwd, call, result);
        const plan = planUpdate(event);
        return [withChild(update, this.#children.end(result.toolCallId)), ...(plan ? [plan] : [])];
      }
      case 'agent/child/start':
        return [this.#children.start(event.body as ChildStartBody)];
      case 'session/title': {
        const { title } = event.body as { title: string };
        return [{ sessionUpdate: 'session_info_update', title }];
      }
      default:
        return [];
    }
  }

  #assistant(seq: number, body: AssistantMessageBody): SessionUpdate[] {
    const updates: SessionUpdate[] = [];
    for (const part of body.content) {
      if (part.type === 'reasoning' && part.text)
        updates.push({
          sessionUpdate: 'agent_thought_chunk',
          content: { type: 'text', text: part.text },
          messageId: messageIdOf(seq, 'thought'),
        });
      else if (part.type === 'text' && part.text)
        updates.push({
          sessionUpdate: 'agent_message_chunk',
          content: { type: 'text', text: part.text },
          messageId: messageIdOf(seq),
        });
      else if (part.type === 'tool-call') {
        this.#calls.set(part.id, { name: part.name, arguments: part.arguments, started: false });
        updates.push({ sessionUpdate: 'tool_call', ...toolCallOf(this.#cwd, part) });
      }
    }
    if (body.usage) {
      if (body.usage.costUsd !== undefined) this.#cost = (this.#cost ?? 0) + body.usage.costUsd;
      updates.push(usageUpdate(body.usage, this.#contextWindow, this.#cost));
    }
    return updates;
  }

  /**
   * Calls the log leaves without a result (the process died): a started one is shown failed with
   * Spine's "outcome unknown" text and the `_meta` marker; one that never started, as not run.
   * The log is not changed here: the next turn records these results.
   */
  end(): SessionUpdate[] {
    const updates: SessionUpdate[] = [];
    for (const [toolCallId, call] of this.#calls) {
      const text = call.started
        ? outcomeUnknownText('the process stopped')
        : notStartedText('the process stopped');
      updates.push({
        sessionUpdate: 'tool_call_update',
        toolCallId,
        status: 'failed',
        content: [textContent(text)],
        ...(call.started
          ? { _meta: { [OUTCOME_UNKNOWN_META]: true, ...this.#children.end(toolCallId) } }
          : {}),
      });
    }
    this.#calls.clear();
    return updates;
  }
}
