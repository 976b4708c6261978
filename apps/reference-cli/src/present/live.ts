import type { Agent, TurnResult } from '@spine/agent-loop';
import { preview, type Style, summarizeArguments } from './style.js';

/** Where live output goes: the answer text, and everything else (tool lines, notices). */
export interface LiveStreams {
  text: NodeJS.WritableStream;
  notices: NodeJS.WritableStream;
}

/**
 * Prints an agent's live events for a person: streamed text, reasoning dimmed, each tool call
 * with its arguments summarised, each result with a preview, retries and compactions. Returns a
 * function that detaches the listeners.
 */
export function attachLiveOutput(
  agent: Agent,
  streams: LiveStreams,
  style: Style,
  options: { showReasoning?: () => boolean } = {},
): () => void {
  const showReasoning = options.showReasoning ?? (() => true);
  let inReasoning = false;
  let midLine = false;
  const write = (stream: NodeJS.WritableStream, text: string): void => {
    stream.write(text);
    midLine = !text.endsWith('\n');
  };
  const newline = (): void => {
    if (midLine) write(streams.text, '\n');
  };
  const onReasoning = ({ text }: { text: string }): void => {
    if (!inReasoning) {
      newline();
      write(
        streams.text,
        style.dim(showReasoning() ? 'thinking: ' : 'thinking… (collapsed; /reasoning shows it)'),
      );
      inReasoning = true;
    }
    if (showReasoning()) write(streams.text, style.dim(text));
  };
  const onText = ({ text }: { text: string }): void => {
    if (inReasoning) {
      write(streams.text, '\n');
      inReasoning = false;
    }
    write(streams.text, text);
  };
  const onToolCall = ({ call }: { call: { name: string; arguments: string } }): void => {
    inReasoning = false;
    newline();
    write(
      streams.notices,
      `  ${style.yellow('→')} ${call.name} ${style.dim(summarizeArguments(call.arguments))}\n`,
    );
  };
  const onToolResult = ({
    result,
  }: {
    result: { toolName: string; content: string; isError: boolean; outcome?: string };
  }): void => {
    newline();
    const mark = result.isError ? style.red(`✗ ${result.outcome ?? 'error'}`) : style.green('✓');
    write(
      streams.notices,
      `  ${mark} ${result.toolName} ${style.dim(preview(result.content, 100))}\n`,
    );
  };
  const onRetry = (event: { nextAttempt: number; delayMs: number; reason: string }): void => {
    newline();
    write(
      streams.notices,
      style.yellow(
        `  retry: attempt ${event.nextAttempt} in ${event.delayMs} ms (${event.reason})\n`,
      ),
    );
  };
  const onCompaction = ({
    outcome,
  }: {
    outcome: { status: string; tokensBefore?: number; tokensAfter?: number; message?: string };
  }): void => {
    if (outcome.status === 'not-needed' || outcome.status === 'disabled') return;
    newline();
    const figures =
      outcome.tokensBefore === undefined
        ? ''
        : ` ${outcome.tokensBefore} → ${outcome.tokensAfter ?? '?'} tokens`;
    write(
      streams.notices,
      style.dim(
        `  compaction ${outcome.status}${figures}${outcome.message ? `: ${outcome.message}` : ''}\n`,
      ),
    );
  };
  const onTurnEnd = (): void => {
    inReasoning = false;
    newline();
  };
  agent.on('reasoning-delta', onReasoning);
  agent.on('text-delta', onText);
  agent.on('tool-call', onToolCall);
  agent.on('tool-result', onToolResult);
  agent.on('retry', onRetry);
  agent.on('compaction', onCompaction);
  agent.on('turn-end', onTurnEnd);
  return () => {
    agent.off('reasoning-delta', onReasoning);
    agent.off('text-delta', onText);
    agent.off('tool-call', onToolCall);
    agent.off('tool-result', onToolResult);
    agent.off('retry', onRetry);
    agent.off('compaction', onCompaction);
    agent.off('turn-end', onTurnEnd);
  };
}

/** One sentence on how a turn ended, for people. */
export function describeTurnEnd(result: TurnResult): string {
  switch (result.reason) {
    case 'completed':
      return result.deniedTools.length
        ? `completed, but denied: ${result.deniedTools.join(', ')}`
        : `completed in ${result.steps} step${result.steps === 1 ? '' : 's'}`;
    case 'max-steps':
      return `stopped at the step limit (${result.steps} steps); raise --max-steps or continue with spine resume`;
    case 'aborted':
      return 'aborted';
    default:
      return `failed: ${result.error?.message ?? 'unknown error'}`;
  }
}
