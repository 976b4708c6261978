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

/** Pushes the Markdown lines of one event onto `out` (none for events the document omits). */
function linesOfEvent(event: SessionEvent, out: string[]): void {
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

/** Adds the usage an `assistant/message` reports to `total`. */
function withUsageOf(total: Usage, event: SessionEvent): Usage {
  const reported = event.type === 'assistant/message' && (event.body as AssistantMessageBody).usage;
  return reported ? addUsage(total, reported) : total;
}

const NO_USAGE: Usage = {
  inputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
};

/** The closing lines: total tokens and cost. */
function footerLines(usage: Usage): string[] {
  const { costUsd: cost } = usage;
  const shown = cost === undefined ? '-' : `$${cost < 1 ? cost.toFixed(4) : cost.toFixed(2)}`;
  return [
    '',
    '---',
    '',
    `Tokens: input ${usage.inputTokens}, cache hit ${usage.cacheReadTokens}, output ${usage.outputTokens}. Cost: ${shown}.`,
  ];
}

/**
 * Renders a session as a Markdown document for people: header, turns, user and assistant
 * messages (reasoning folded in `<details>`), tool calls and results in fences long enough for
 * any backticks they hold, and the total usage and cost. {@link writeSessionMarkdown} writes the
 * same document from a stream of events without holding them.
 *
 * @example
 * ```ts
 * writeFileSync('session.md', renderSessionMarkdown(session.events()));
 * ```
 */
export function renderSessionMarkdown(events: readonly SessionEvent[]): string {
  const out: string[] = [];
  let usage = NO_USAGE;
  for (const event of events) {
    linesOfEvent(event, out);
    usage = withUsageOf(usage, event);
  }
  out.push(...footerLines(usage));
  return `${out.join('\n')}\n`;
}

/** Options of {@link writeSessionMarkdown}. */
export interface WriteSessionMarkdownOptions {
  /** Characters gathered before `write` is called (default 65 536; a chunk ends on a line end). */
  chunkChars?: number;
}

/**
 * Writes the document {@link renderSessionMarkdown} renders, byte for byte, from a stream of
 * events (such as `session.readEvents({ fromSeq: 1 })` or a store's `readRange`), holding one
 * chunk of text at a time instead of every event: `write` receives the text in order, in chunks
 * that end on a line end, and is awaited before the next event is read.
 *
 * @example
 * ```ts
 * const file = createWriteStream('session.md');
 * await writeSessionMarkdown(store.readRange(id, { fromSeq: 1 }), (chunk) => {
 *   if (!file.write(chunk)) return once(file, 'drain').then(() => undefined);
 * });
 * ```
 */
export async function writeSessionMarkdown(
  events: AsyncIterable<SessionEvent> | Iterable<SessionEvent>,
  write: (chunk: string) => void | Promise<void>,
  options: WriteSessionMarkdownOptions = {},
): Promise<void> {
  const limit = options.chunkChars ?? 65_536;
  let usage = NO_USAGE;
  let chunk = '';
  const lines: string[] = [];
  for await (const event of events) {
    linesOfEvent(event, lines);
    usage = withUsageOf(usage, event);
    for (const line of lines) chunk += `${line}\n`;
    lines.length = 0;
    if (chunk.length >= limit) {
      await write(chunk);
      chunk = '';
    }
  }
  for (const line of footerLines(usage)) chunk += `${line}\n`;
  await write(chunk);
}
