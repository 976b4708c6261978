import { createScriptedModelServer, type ScriptedModelServer } from '@spine/test-utils';
import { generateText, streamText, wrapLanguageModel } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecordingFailedError, spineRecorder, verifyRecording } from '../src/index.js';
import { loopbackModel, recordingSession } from './helpers.js';

let server: ScriptedModelServer | undefined;
let log: Awaited<ReturnType<typeof recordingSession>>;

beforeEach(async () => {
  log = await recordingSession();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await log.session.close().catch(() => undefined);
  log.cleanup();
});

function recorded(type: string) {
  return log.session.events().filter((event) => event.type === type);
}

describe('spineRecorder', () => {
  it('stores only new messages, and starts from the shared prefix when history is rewritten', async () => {
    server = await createScriptedModelServer({ replies: () => ({ text: 'ok' }) });
    const model = wrapLanguageModel({
      model: loopbackModel(server.baseUrl),
      middleware: spineRecorder({ session: log.session }),
    });
    const history = [
      { role: 'user' as const, content: 'one' },
      { role: 'assistant' as const, content: 'ok' },
      { role: 'user' as const, content: 'two' },
    ];
    await generateText({ model, system: 'sys', messages: history });
    await generateText({
      model,
      system: 'sys',
      messages: [
        ...history,
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: 'three' },
      ],
    });
    // A compacted history: the first user message is replaced by a summary.
    await generateText({
      model,
      system: 'sys',
      messages: [{ role: 'user', content: 'summary of one' }, ...history.slice(1)],
    });
    const bodies = recorded('ai-sdk/call').map(
      (event) => event.body as { messages: unknown[]; base?: { seq: number; keep: number } },
    );
    expect(bodies.map((body) => body.messages.length)).toEqual([4, 2, 3]);
    expect(bodies[1]?.base?.keep).toBe(4);
    expect(bodies[2]?.base?.keep).toBe(1); // only the system message is shared
    expect(await verifyRecording(log.session)).toMatchObject({ ok: true, calls: 3 });
  }, 60_000);

  it('records a failed call with its error and rethrows it unchanged', async () => {
    server = await createScriptedModelServer({
      replies: [
        {
          error: {
            status: 400,
            body: JSON.stringify({ error: { message: 'bad request: context too long' } }),
          },
        },
      ],
    });
    const model = wrapLanguageModel({
      model: loopbackModel(server.baseUrl),
      middleware: spineRecorder({ session: log.session }),
    });
    await expect(generateText({ model, prompt: 'hi', maxRetries: 0 })).rejects.toThrow(
      /context too long/,
    );
    const [response] = recorded('ai-sdk/response');
    expect(response?.body).toMatchObject({
      error: { message: expect.stringMatching(/context too long/), statusCode: 400 },
    });
    expect(await verifyRecording(log.session)).toMatchObject({ ok: true, calls: 1, responses: 1 });
  }, 60_000);

  it('records a stream that broke off as an error', async () => {
    server = await createScriptedModelServer({
      replies: [{ dropAfterChunks: 3, text: 'partial answer that breaks' }],
    });
    const model = wrapLanguageModel({
      model: loopbackModel(server.baseUrl),
      middleware: spineRecorder({ session: log.session }),
    });
    const result = streamText({ model, prompt: 'hi', maxRetries: 0, onError: () => undefined });
    await result.consumeStream();
    const [response] = recorded('ai-sdk/response');
    expect(response?.body).toHaveProperty('error.message');
    expect(await verifyRecording(log.session)).toMatchObject({ ok: true, unanswered: [] });
  }, 60_000);

  it('records a stream the app aborted mid-answer', async () => {
    server = await createScriptedModelServer({
      replies: [{ stallAfterChunks: 2, text: 'a long answer that stalls' }],
    });
    const model = wrapLanguageModel({
      model: loopbackModel(server.baseUrl),
      middleware: spineRecorder({ session: log.session }),
    });
    const controller = new AbortController();
    const result = streamText({
      model,
      prompt: 'hi',
      maxRetries: 0,
      abortSignal: controller.signal,
      onError: () => undefined,
    });
    for await (const _ of result.textStream) {
      controller.abort();
      break;
    }
    await Promise.resolve(result.consumeStream()).catch(() => undefined);
    for (let i = 0; i < 500 && recorded('ai-sdk/response').length === 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    const [response] = recorded('ai-sdk/response');
    expect(response?.body).toHaveProperty('error.message');
    expect(await verifyRecording(log.session)).toMatchObject({
      ok: true,
      calls: 1,
      responses: 1,
      unanswered: [],
    });
  }, 60_000);

  it('does not call the model when the call cannot be recorded', async () => {
    server = await createScriptedModelServer({ replies: () => ({ text: 'ok' }) });
    const model = wrapLanguageModel({
      model: loopbackModel(server.baseUrl),
      middleware: spineRecorder({ session: log.session }),
    });
    await log.session.close();
    await expect(generateText({ model, prompt: 'hi', maxRetries: 0 })).rejects.toSatisfy(
      (error) =>
        RecordingFailedError.isInstance(error) ||
        RecordingFailedError.isInstance((error as Error).cause),
    );
    expect(server.requests).toHaveLength(0);
  }, 60_000);

  it('redacts credentials in call headers', async () => {
    server = await createScriptedModelServer({ replies: () => ({ text: 'ok' }) });
    const model = wrapLanguageModel({
      model: loopbackModel(server.baseUrl),
      middleware: spineRecorder({ session: log.session }),
    });
    await generateText({
      model,
      prompt: 'hi',
      headers: { Authorization: 'Bearer secret-token', 'x-trace': 't1' },
    });
    const text = JSON.stringify(recorded('ai-sdk/call')[0]?.body);
    expect(text).not.toContain('secret-token');
    expect(text).toContain('"x-trace":"t1"');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer secret-token');
  }, 60_000);
});
