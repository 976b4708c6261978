import type {
  AssistantMessageBody,
  SessionEvent,
  SessionHeaderBody,
  ToolResultBody,
  Usage,
  UserMessageBody,
} from '@spine/protocol';
import { addUsage } from '@spine/protocol/core';

function fence(text: string, language = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}${language}\n${text}\n${marks}`;
}

/**
 * Renders a session as a Markdown document for people: header, turns, user and assistant
 * messages (reasoning folded in `<details>`), tool calls and results in fences long enough for
 * any backticks they hold, and the total usage and cost.
 *
 * @example
 * ```ts
 * writeFileSync('session.md', renderSessionMarkdown(session.events()));
 * ```
 */
export function renderSessionMarkdown(events: readonly SessionEvent[]): string {
  const out: string[] = [];
  for (const event of events) {
    switch (event.type) {
      case 'session/header': {
        const header = event.body as SessionHeaderBody;
        out.push(`# ${header.title ?? `Session ${header.sessionId}`}`, '');
        out.push(`- id: \`${header.sessionId}\``, `- created: ${header.createdAt}`);
        if (header.model) out.push(`- model: \`${header.model}\``);
        if (header.cwd) out.push(`- workspace: \`${header.cwd}\``);
        break;
      }
      case 'turn/start':
        out.push('', `## Turn ${event.turn ?? '?'}`);
        break;
      case 'user/message': {
        const body = event.body as UserMessageBody;
        if (body.source === 'user')
          out.push('', '**User**', '', ...body.content.split('\n').map((line) => `> ${line}`));
        else
          out.push(
            '',
            `<details><summary>${body.source}</summary>`,
            '',
            fence(body.content),
            '',
            '</details>',
          );
        break;
      }
      case 'assistant/message': {
        const body = event.body as AssistantMessageBody;
        out.push('', '**Assistant**');
        for (const part of body.content) {
          if (part.type === 'text' && part.text.trim()) out.push('', part.text.trim());
          else if (part.type === 'reasoning' && part.text.trim()) {
            out.push(
              '',
              '<details><summary>reasoning</summary>',
              '',
              part.text.trim(),
              '',
              '</details>',
            );
          } else if (part.type === 'tool-call') {
            out.push(
              '',
              `Tool call \`${part.name}\` (\`${part.id}\`):`,
              '',
              fence(part.arguments, 'json'),
            );
          }
        }
        break;
      }
      case 'tool/result': {
        const body = event.body as ToolResultBody;
        out.push(
          '',
          `Result of \`${body.toolName}\`${body.isError ? ' (error)' : ''}:`,
          '',
          fence(body.content),
        );
        break;
      }
      default:
        break;
    }
  }
  let usage: Usage = { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0 };
  for (const event of events) {
    const reported =
      event.type === 'assistant/message' && (event.body as AssistantMessageBody).usage;
    if (reported) usage = addUsage(usage, reported);
  }
  const { costUsd: cost } = usage;
  const shown = cost === undefined ? '-' : `$${cost < 1 ? cost.toFixed(4) : cost.toFixed(2)}`;
  out.push(
    '',
    '---',
    '',
    `Tokens: input ${usage.inputTokens}, cache hit ${usage.cacheReadTokens}, output ${usage.outputTokens}. Cost: ${shown}.`,
  );
  return `${out.join('\n')}\n`;
}
