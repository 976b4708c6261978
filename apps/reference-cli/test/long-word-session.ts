// A one-turn session written through the session log in which every field a person reads holds a
// long unbroken word (2,000 letters, a long URL, a long path), the input that made the audit page
// wider than the window: title, cwd, the person's Markdown (paragraph, inline code, link, table,
// code block), the answer, reasoning, a tool call's arguments and an edit's diff, an approval
// reason, a tool result and its metadata.
import { createJsonlStore, Session } from '@spine/session-log';

/** 2,000 letters with no break opportunity. */
export const LONG_WORD = 'a'.repeat(2_000);
/** A URL of about 1,500 characters with no space. */
export const LONG_URL = `https://example.com/${'x'.repeat(1_500)}?q=${'y'.repeat(40)}`;

/** Markdown carrying the long word and URL in each block a message may have. */
const MARKDOWN = [
  `# ${LONG_WORD}`,
  `A paragraph: ${LONG_WORD}, a link [${LONG_URL}](${LONG_URL}), a bare ${LONG_URL} and \`${LONG_WORD}\`.`,
  `| name | value |\n| --- | --- |\n| ${LONG_WORD} | ${LONG_URL} |`,
  `\`\`\`\n${LONG_WORD}\n\`\`\``,
  `- ${LONG_URL}\n> ${LONG_WORD}`,
].join('\n\n');

/** Writes the session `id` into `dir` (a JSONL session folder). */
export async function writeLongWordSession(dir: string, id: string): Promise<void> {
  const session = await Session.create({
    store: createJsonlStore({ dir, fsync: 'never' }),
    id,
    title: `title ${LONG_WORD}`,
    cwd: `/tmp/${LONG_WORD}`,
    model: `deepseek/${LONG_WORD}`,
  });
  const at = { turn: 1, step: 1 };
  const append = { ...at, surfaceOp: { op: 'append' as const } };
  session.append('turn/start', {}, { turn: 1 });
  session.append('user/message', { content: MARKDOWN, source: 'user' }, append);
  const path = `src/${LONG_WORD}.js`;
  session.append(
    'assistant/message',
    {
      content: [
        { type: 'reasoning', text: LONG_WORD },
        { type: 'text', text: MARKDOWN },
        {
          type: 'tool-call',
          id: 'call_1',
          name: 'bash',
          arguments: JSON.stringify({ command: `curl ${LONG_URL}` }),
        },
        {
          type: 'tool-call',
          id: 'call_2',
          name: 'edit',
          arguments: JSON.stringify({ path, edits: [{ oldText: LONG_WORD, newText: LONG_URL }] }),
        },
      ],
      finishReason: 'tool-calls',
    },
    append,
  );
  session.append(
    'tool/approval',
    { toolCallId: 'call_1', toolName: 'bash', decision: 'deny', by: 'rule', reason: LONG_URL },
    at,
  );
  session.append(
    'tool/result',
    {
      toolCallId: 'call_1',
      toolName: 'bash',
      content: LONG_URL,
      isError: true,
      outcome: 'denied',
      meta: { sandbox: LONG_WORD },
    },
    append,
  );
  session.append(
    'tool/result',
    {
      toolCallId: 'call_2',
      toolName: 'edit',
      content: `edited ${path}`,
      isError: false,
      meta: { sourcePath: path, sourceUrl: LONG_URL },
    },
    append,
  );
  session.append(
    'assistant/message',
    { content: [{ type: 'text', text: LONG_URL }], finishReason: 'stop' },
    { turn: 1, step: 2, surfaceOp: { op: 'append' } },
  );
  const error = { code: LONG_WORD, message: LONG_URL };
  session.append('turn/end', { reason: 'error', error }, { turn: 1 });
  await session.close();
}
