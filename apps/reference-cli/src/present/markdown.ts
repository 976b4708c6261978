import type {
  AssistantMessageBody,
  SessionEvent,
  SessionHeaderBody,
  ToolResultBody,
  UserMessageBody,
} from '@spine/protocol';
import { formatCost } from './style.js';
import { totalUsage } from './transcript.js';

function fence(text: string, language = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}${language}\n${text}\n${marks}`;
}

/** Renders a session as a Markdown document: header, turns, messages, tool calls and results. */
export function renderMarkdown(events: readonly SessionEvent[]): string {
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
  const usage = totalUsage(events);
  out.push(
    '',
    '---',
    '',
    `Tokens: input ${usage.inputTokens}, cache hit ${usage.cacheReadTokens}, output ${usage.outputTokens}. Cost: ${formatCost(usage.costUsd)}.`,
  );
  return `${out.join('\n')}\n`;
}
