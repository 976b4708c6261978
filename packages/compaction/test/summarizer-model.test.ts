import { createOpenAICompatibleModel } from '@spine/llm';
import { createScriptedModelServer, type ScriptedModelServer } from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { createCompactionEngine } from '../src/engine.js';
import { SummaryEmptyError } from '../src/errors.js';
import { createModelSummarizer } from '../src/summarizer-model.js';
import { createTokenMeter } from '../src/token-meter.js';
import { filler, newSession, say, toolStep } from './history.js';

const FIVE = [
  'Primary Request and Intent',
  'Files and Code',
  'Errors and Fixes',
  'Next Step',
  'Critical Context',
];
let server: ScriptedModelServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

function modelFor(baseUrl: string) {
  return createOpenAICompatibleModel({ baseUrl, allowNoApiKey: true, provider: 'deepseek' });
}

async function sessionWithHistory() {
  const session = await newSession();
  say(session, 'Port the CLI to ESM. Do not touch packages/legacy.', { turn: 1 });
  for (let step = 1; step <= 30; step++) {
    toolStep(
      session,
      { id: `c${step}`, name: 'read_file', args: { path: `src/cli-${step}.ts` } },
      filler(120, step),
      {
        turn: 1,
        step,
      },
    );
  }
  return session;
}

describe('createModelSummarizer over a loopback model server', () => {
  it('asks for the five-section template with the region, prompt and tools, and returns the text', async () => {
    const summary = FIVE.map((heading) => `### ${heading}\nsomething`).join('\n');
    server = await createScriptedModelServer({ replies: [{ text: summary }] });
    const summarizer = createModelSummarizer({
      model: modelFor(server.baseUrl),
      modelId: 'deepseek-chat',
    });
    const result = await summarizer.summarize({
      system: 'You are the agent.',
      tools: [{ name: 'read_file', description: 'Reads a file.', parameters: { type: 'object' } }],
      messages: [
        { role: 'user', content: 'Fix src/a.ts', source: 'user' },
        { role: 'assistant', content: [{ type: 'text', text: 'Reading it.' }] },
      ],
      focus: 'the parser',
    });
    expect(result.summary).toBe(summary);
    const body = server.requests[0]?.body;
    for (const heading of FIVE) expect(body.messages[0].content).toContain(heading);
    const transcript = body.messages[1].content as string;
    expect(transcript).toContain('You are the agent.');
    expect(transcript).toContain('- read_file: Reads a file.');
    expect(transcript).toContain('Fix src/a.ts');
    expect(transcript).toContain('focus on: the parser');
    expect(body.model).toBe('deepseek-chat');
  });

  it('throws SummaryEmptyError when the model answers with no text', async () => {
    server = await createScriptedModelServer({ replies: [{ text: '', finishReason: 'length' }] });
    const summarizer = createModelSummarizer({
      model: modelFor(server.baseUrl),
      modelId: 'deepseek-chat',
    });
    await expect(
      summarizer.summarize({ system: '', tools: [], messages: [] }),
    ).rejects.toBeInstanceOf(SummaryEmptyError);
  });

  it('commits a model-written checkpoint, and the deterministic record alone when the server fails', async () => {
    server = await createScriptedModelServer({
      replies: [
        { text: FIVE.map((heading) => `### ${heading}\nfrom the model`).join('\n') },
        {
          error: {
            status: 400,
            body: JSON.stringify({
              error: { message: 'bad request', type: 'invalid_request_error' },
            }),
          },
        },
      ],
    });
    const summarizer = createModelSummarizer({
      model: modelFor(server.baseUrl),
      modelId: 'deepseek-chat',
    });
    const engine = createCompactionEngine({ meter: createTokenMeter(), summarizer });
    const first = await sessionWithHistory();
    const ok = await engine.compact({
      session: first,
      reason: 'manual',
      contextWindow: 16_000,
      system: 'S',
      tools: [],
    });
    expect(ok.status).toBe('compacted');
    const checkpoint = first.deriveMessages().messages[0];
    expect(checkpoint?.role === 'user' && checkpoint.content).toContain('from the model');
    expect(checkpoint?.role === 'user' && checkpoint.content).toContain(
      'Do not touch packages/legacy.',
    );

    const second = await sessionWithHistory();
    const fallback = await engine.compact({
      session: second,
      reason: 'manual',
      contextWindow: 16_000,
      system: 'S',
      tools: [],
    });
    expect(fallback.status).toBe('compacted');
    expect(fallback.message).toContain('Deterministic checkpoint only');
    const record = second.deriveMessages().messages[0];
    expect(record?.role === 'user' && record.content).toContain('Do not touch packages/legacy.');
    expect(record?.role === 'user' && record.content).toContain(
      'No model summary: the summariser failed',
    );
  });
});
