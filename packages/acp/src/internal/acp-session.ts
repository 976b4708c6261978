// One ACP session: a Spine session with its agent, live updates to the client, and prompts run
// one after another. `session/cancel` aborts the running turn (the agent kills running commands'
// process groups and records `turn/end`, as Ctrl-C does) and every prompt queued behind it.
import type { PromptResponse, SessionUpdate, StopReason } from '@agentclientprotocol/sdk';
import type { TurnResult } from '@spine/agent-loop';
import {
  type AgentSession,
  currentSessionTitle,
  deriveSessionTitle,
  recordSessionTitle,
  storeImage,
} from '@spine/harness';
import { type CommandOptions, commandsUpdate, parseCommand, runCommand } from './commands.js';
import { attachLive } from './live.js';
import type { PromptImage } from './prompt-content.js';

/** A live ACP session over a started Spine session. */
export class AcpSession {
  readonly active: AgentSession;
  readonly cwd: string;
  readonly #send: (update: SessionUpdate) => void;
  readonly #commands: CommandOptions;
  #detach: (() => void) | undefined;
  #tail: Promise<unknown> = Promise.resolve();
  #cancelled = new AbortController();
  #closed = false;

  constructor(options: {
    active: AgentSession;
    cwd: string;
    send: (update: SessionUpdate) => void;
    /** What slash commands may ask the client (`/rewind` over outside changes). */
    commands?: CommandOptions;
  }) {
    this.active = options.active;
    this.#commands = options.commands ?? {};
    this.cwd = options.cwd;
    this.#send = options.send;
  }

  /** Starts forwarding live events (after a load has replayed the log). */
  attach(): void {
    this.#detach ??= attachLive(this.active, this.cwd, this.#send);
  }

  /** The commands update sent once a session is open. */
  commandsUpdate(): SessionUpdate {
    return commandsUpdate();
  }

  /** Runs `text` as a turn after the prompts before it; resolves with the stop reason. */
  prompt(text: string, images: readonly PromptImage[] = []): Promise<PromptResponse> {
    const signal = this.#cancelled.signal;
    const run = this.#tail.then(() => this.#run(text, signal, images));
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** Cancels the running turn and every prompt queued behind it. */
  cancel(): void {
    this.#cancelled.abort();
    this.#cancelled = new AbortController();
  }

  /** Cancels, waits for the turn to end, and closes the Spine session. */
  async close(reason: string): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.cancel();
    await this.#tail;
    this.#detach?.();
    await this.active.finish(reason);
  }

  async #run(
    text: string,
    signal: AbortSignal,
    attached: readonly PromptImage[],
  ): Promise<PromptResponse> {
    if (signal.aborted || this.#closed) return { stopReason: 'cancelled' };
    const command = parseCommand(text);
    if (command) {
      const reply = await runCommand(this.active, command.name, command.argument, this.#commands);
      if (reply) this.#say(reply.text, reply.meta);
      return { stopReason: 'end_turn' };
    }
    const { active } = this;
    if (currentSessionTitle(active.config.sessionDir, active.session) === undefined)
      recordSessionTitle(
        active.session,
        active.config.sessionDir,
        deriveSessionTitle(text),
        'auto',
      );
    // Stored in the session's blob store; the user message references them by hash.
    const images = attached.map((image) => storeImage(active.session, image.bytes, image.what));
    const result = await active.agent.run(text, {
      signal,
      ...(images.length > 0 ? { images } : {}),
    });
    // The client hears the turn is over only once its events are durable in the log.
    await active.session.flush();
    // The turn is recorded as failed; the client is told why, as text, and the turn ends.
    if (result.reason === 'error')
      this.#say(`Spine stopped: ${result.error?.message ?? 'the turn failed'}`);
    return { stopReason: signal.aborted ? 'cancelled' : stopReasonOf(result) };
  }

  #say(text: string, meta?: Record<string, unknown>): void {
    this.#send({
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text },
      ...(meta ? { _meta: meta } : {}),
    });
  }
}

/** The ACP stop reason of a turn's result. */
export function stopReasonOf(result: Pick<TurnResult, 'reason'>): StopReason {
  return result.reason === 'aborted'
    ? 'cancelled'
    : result.reason === 'max-steps'
      ? 'max_turn_requests'
      : 'end_turn';
}
