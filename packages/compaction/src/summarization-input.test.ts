import type { RequestHeaderBody } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { newSession, reply, say } from '../test/history.js';
import { buildSummarizationInput } from './summarization-input.js';

const OLD_TOOLS = [{ name: 'read_file', description: 'Reads.', parameters: { type: 'object' } }];
const NEW_TOOLS = [{ name: 'web_fetch', description: 'Fetches.', parameters: { type: 'object' } }];

/** A `request/header` body as the protocol schema requires, naming the given hashes. */
function header(systemHash: string, toolsHash: string, turn: number): RequestHeaderBody {
  return {
    ...{ turn, step: 1, attempt: 1, model: 'm', provider: 'p', systemHash, toolsHash },
    ...{ generation: 0, messageCount: 1, seqs: { ranges: [] }, addedHashes: [] },
    ...{ messagesHash: 'sha256:0', requestHash: 'sha256:0' },
    prefix: { kept: 0, of: 0, extends: false, causes: [] },
  };
}

describe('buildSummarizationInput', () => {
  it('restores the region messages and the system prompt and tools in force then', async () => {
    const session = await newSession();
    session.append('prompt/system', { hash: 'sys-old', text: 'Old system prompt.' });
    session.append('tools/defined', { hash: 'tools-old', tools: OLD_TOOLS });
    const first = say(session, 'Fix the parser.', { turn: 1 });
    session.append('request/header', header('sys-old', 'tools-old', 1), { turn: 1, step: 1 });
    const answer = reply(session, 'Fixed.', { turn: 1, step: 1 });
    session.append('prompt/system', { hash: 'sys-new', text: 'New system prompt.' });
    session.append('tools/defined', { hash: 'tools-new', tools: NEW_TOOLS });
    say(session, 'Now fetch the docs.', { turn: 2 });
    session.append('request/header', header('sys-new', 'tools-new', 2), { turn: 2, step: 1 });

    const input = buildSummarizationInput(
      session,
      { start: first, end: answer },
      {
        system: 'Current prompt.',
        tools: [],
        focus: 'the parser',
      },
    );
    expect(input.system).toBe('Old system prompt.');
    expect(input.tools).toEqual(OLD_TOOLS);
    expect(input.messages).toEqual([
      { role: 'user', content: 'Fix the parser.', source: 'user' },
      { role: 'assistant', content: [{ type: 'text', text: 'Fixed.' }] },
    ]);
    expect(input.focus).toBe('the parser');
  });

  it('falls back to the current prompt and tools when no request was recorded', async () => {
    const session = await newSession();
    const first = say(session, 'Hello.', { turn: 1 });
    const input = buildSummarizationInput(
      session,
      { start: first, end: first },
      { system: 'Now.', tools: NEW_TOOLS },
    );
    expect(input).toMatchObject({ system: 'Now.', tools: NEW_TOOLS });
    expect(() =>
      buildSummarizationInput(session, { start: 99, end: 100 }, { system: '', tools: [] }),
    ).toThrow(/not on the current surface/);
  });
});
