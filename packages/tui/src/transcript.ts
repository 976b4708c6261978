import { preview, summarizeArguments } from '@spine/harness';
import {
  type AssistantMessageBody,
  addUsage,
  type JobEndBody,
  type JobRecoveredBody,
  type JobStartBody,
  type PlanModeBody,
  type SessionConfigBody,
  type SessionEvent,
  type SessionHeaderBody,
  type ToolApprovalBody,
  type ToolResultBody,
  type Usage,
  type UserMessageBody,
  visibleText,
  type WorkspaceRestoredBody,
} from '@spine/protocol';
import { planChecklistLines } from './plan-checklist.js';
import { formatCost, type Style, styleFor } from './style.js';

const MULTI_LINE = { keepLineBreaks: true } as const;

/** Options of {@link renderTranscript}. */
export interface TranscriptOptions {
  /** Styling (default: none). */
  style?: Style;
  /** Show reasoning text (dimmed) instead of a one-line mention. */
  reasoning?: boolean;
  /** Characters of each tool result shown (default 200). */
  resultPreview?: number;
}

/** Sum of the usage recorded on `assistant/message` events. */
export function totalUsage(events: readonly SessionEvent[]): Usage {
  let total: Usage = { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 };
  for (const event of events) {
    const usage = event.type === 'assistant/message' && (event.body as AssistantMessageBody).usage;
    if (usage) total = addUsage(total, usage);
  }
  return total;
}

/**
 * The transcript lines of one event (none for events a transcript leaves out): what
 * {@link renderTranscript} shows for it, for writers that stream a session event by event.
 */
export function transcriptLines(event: SessionEvent, options: TranscriptOptions = {}): string[] {
  const style = options.style ?? styleFor({});
  const max = options.resultPreview ?? 200;
  const lines: string[] = [];
  switch (event.type) {
    case 'session/header': {
      const header = event.body as SessionHeaderBody;
      lines.push(style.bold(`session ${visibleText(header.sessionId)}`));
      if (header.title) lines.push(style.bold(visibleText(`title: ${preview(header.title, 120)}`)));
      lines.push(
        style.dim(
          visibleText(
            `created ${header.createdAt}  model ${header.model ?? '-'}  cwd ${header.cwd ?? '-'}`,
          ),
        ),
      );
      if (header.parent)
        lines.push(
          style.dim(
            visibleText(
              header.parent.toolCallId === undefined
                ? `forked from ${header.parent.sessionId} at seq ${header.parent.atSeq}`
                : `subagent of ${header.parent.sessionId} (task call ${header.parent.toolCallId} at seq ${header.parent.atSeq})`,
            ),
          ),
        );
      break;
    }
    case 'turn/start':
      lines.push('', style.bold(`── turn ${event.turn ?? '?'} ──`));
      break;
    case 'user/message': {
      const body = event.body as UserMessageBody;
      if (body.source === 'user')
        lines.push(`${style.cyan('you ›')} ${visibleText(body.content, MULTI_LINE)}`);
      else if (body.source === 'compact-checkpoint')
        lines.push(style.dim(`[checkpoint] ${preview(body.content, max)}`));
      else lines.push(style.dim(`[${visibleText(body.source)}] ${preview(body.content, 120)}`));
      break;
    }
    case 'assistant/message': {
      const body = event.body as AssistantMessageBody;
      for (const part of body.content) {
        if (part.type === 'reasoning') {
          lines.push(
            style.dim(
              options.reasoning
                ? `thinking: ${visibleText(part.text, MULTI_LINE)}`
                : `thinking: ${preview(part.text, 80)}`,
            ),
          );
        } else if (part.type === 'text' && part.text.trim()) {
          lines.push(`${style.green('spine ›')} ${visibleText(part.text.trim(), MULTI_LINE)}`);
        } else if (part.type === 'tool-call') {
          lines.push(
            `  ${style.yellow('→')} ${visibleText(part.name)} ${style.dim(summarizeArguments(part.arguments))}`,
          );
        }
      }
      break;
    }
    case 'tool/approval': {
      const body = event.body as ToolApprovalBody;
      if (body.decision === 'deny')
        lines.push(
          `  ${style.red('✗ denied')} ${visibleText(body.toolName)}: ${visibleText(body.reason ?? '')}`,
        );
      break;
    }
    case 'tool/result': {
      const body = event.body as ToolResultBody;
      const mark = body.isError ? style.red('✗') : style.green('✓');
      if (body.toolName === 'update_plan' && !body.isError) {
        lines.push(...planChecklistLines(body.content, mark, style));
        break;
      }
      lines.push(
        `  ${mark} ${visibleText(body.toolName)} ${style.dim(preview(body.content, max))}`,
      );
      break;
    }
    case 'compaction/end':
      lines.push(style.dim('[compacted]'));
      break;
    case 'agent/aborted':
      lines.push(style.red('[aborted]'));
      break;
    case 'workspace/restored': {
      const body = event.body as WorkspaceRestoredBody;
      const files = body.changes.length + (body.moreChanges ?? 0);
      lines.push(
        style.yellow(
          `[workspace ${body.reason === 'rewind' ? 'rewound' : `restored (${body.reason})`} to checkpoint ${visibleText(body.target.slice(0, 12))}: ${files} file(s)${body.overwritten?.length ? `, ${body.overwritten.length} changed outside Spine overwritten` : ''}]`,
        ),
      );
      break;
    }
    case 'plan/mode': {
      const body = event.body as PlanModeBody;
      lines.push(
        style.cyan(
          body.mode === 'plan'
            ? '[plan mode: reads, searches and fetches only]'
            : `[plan mode off: implementing under ${visibleText(body.approval)}]`,
        ),
      );
      break;
    }
    case 'session/config': {
      const body = event.body as SessionConfigBody;
      const was = body.previous === undefined ? '' : ` (was ${visibleText(body.previous)})`;
      const what = body.option === 'model' ? 'model' : 'approval preset';
      lines.push(style.cyan(`[${what}: ${visibleText(body.value)}${was}, set by the ${body.by}]`));
      break;
    }
    case 'session/title': {
      const body = event.body as { title?: string; source?: string };
      lines.push(
        style.dim(
          visibleText(
            `title: ${body.title ?? ''}${body.source === 'person' ? ' (set by a person)' : ''}`,
          ),
        ),
      );
      break;
    }
    case 'job/start':
    case 'job/end':
    case 'job/recovered':
      lines.push(style.cyan(jobLine(event)));
      break;
    case 'session/recovered':
      lines.push(
        style.yellow(
          `[recovered] ${visibleText((event.body as { reason?: string }).reason ?? '')}`,
        ),
      );
      break;
    case 'turn/end': {
      const body = event.body as { reason?: string };
      if (body.reason && body.reason !== 'completed')
        lines.push(style.yellow(`[turn ended: ${visibleText(body.reason)}]`));
      break;
    }
    default:
      break;
  }
  return lines;
}

/** One line for a background job's start, end or recovery after a crash. */
function jobLine(event: SessionEvent): string {
  const body = event.body as JobStartBody & JobEndBody & JobRecoveredBody;
  const id = visibleText(body.id);
  if (event.type === 'job/start') return `[job ${id} started: ${visibleText(body.command)}]`;
  if (event.type === 'job/recovered')
    return body.state === 'running'
      ? `[job ${id} still running after a crash (pid ${body.pid})]`
      : `[job ${id} gone after a crash: outcome unknown]`;
  const how = body.killed
    ? `stopped (${visibleText(body.by)})`
    : `exited ${body.exitCode ?? visibleText(String(body.signal))}`;
  return `[job ${id} ${how}, ${body.outputBytes} bytes of output]`;
}

/** The closing lines of a transcript: the session's total tokens and cost. */
export function transcriptFooter(usage: Usage, options: TranscriptOptions = {}): string[] {
  const style = options.style ?? styleFor({});
  return [
    '',
    style.dim(
      `tokens: input ${usage.inputTokens}, cache hit ${usage.cacheReadTokens}, output ${usage.outputTokens}; cost ${formatCost(usage.costUsd)}`,
    ),
  ];
}

/** Renders a session's events as a readable transcript: turns, messages, tool calls and results. */
export function renderTranscript(
  events: readonly SessionEvent[],
  options: TranscriptOptions = {},
): string {
  const resolved = { ...options, style: options.style ?? styleFor({}) };
  const lines: string[] = [];
  for (const event of events) lines.push(...transcriptLines(event, resolved));
  lines.push(...transcriptFooter(totalUsage(events), resolved));
  return `${lines.join('\n')}\n`;
}
