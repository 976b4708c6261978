import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer, type ScriptedModelServer, tmpDir } from '@spine/test-utils';
import { detectSandbox } from '@spine/tool-runtime';
import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spineRecorder, spineTools, verifyRecording } from '../src/index.js';
import { flipByteAt, loopbackModel, recordingSession, seqOfLineWith } from './helpers.js';

let server: ScriptedModelServer;
let workspace: string;
let log: Awaited<ReturnType<typeof recordingSession>>;

beforeEach(async () => {
  workspace = tmpDir('spine-ai-sdk-ws-');
  log = await recordingSession();
});
afterEach(async () => {
  await server?.close();
  await log.session.close().catch(() => undefined);
  log.cleanup();
  rmSync(workspace, { recursive: true, force: true });
});

const agentReplies = () => [
  {
    toolCalls: [
      {
        id: 'call_1',
        name: 'bash',
        arguments: JSON.stringify({
          command:
            'echo sandboxed > out.txt && (touch /usr/spine-escape 2>/dev/null && echo escaped || echo confined) && cat out.txt',
        }),
      },
    ],
  },
  { toolCalls: [{ id: 'call_2', name: 'read', arguments: JSON.stringify({ path: 'out.txt' }) }] },
  { text: 'The file says sandboxed.' },
];

describe('a multi-step AI SDK agent with spineTools and the recorder', () => {
  it('runs commands in the bubblewrap sandbox and records a log that verifies (generateText)', async () => {
    const sandbox = await detectSandbox();
    expect(sandbox?.info.name).toBe('bwrap');
    server = await createScriptedModelServer({ replies: agentReplies() });
    const asked: string[] = [];
    const tools = spineTools({
      cwd: workspace,
      approve: async (request) => {
        asked.push(request.toolName);
        return 'once';
      },
    });
    const model = wrapLanguageModel({
      model: loopbackModel(server.baseUrl),
      middleware: spineRecorder({ session: log.session }),
    });
    const result = await generateText({
      model,
      tools,
      system: 'You are a careful agent.',
      prompt: 'Write out.txt, then read it.',
      stopWhen: stepCountIs(5),
    });
    expect(result.text).toBe('The file says sandboxed.');
    expect(result.steps).toHaveLength(3);
    expect(asked).toEqual(['bash']); // read needs no approval under `ask`
    expect(readFileSync(join(workspace, 'out.txt'), 'utf8')).toBe('sandboxed\n');
    // The command ran in the sandbox: the system outside the workspace is read-only, even for root.
    const bashResult = result.steps[0]?.toolResults[0]?.output as {
      content: string;
      meta?: { sandbox?: string };
    };
    expect(bashResult.meta?.sandbox).toBe('bwrap');
    expect(bashResult.content).toBe('confined\nsandboxed\n');
    expect(existsSync('/usr/spine-escape')).toBe(false);
    expect(server.requests).toHaveLength(3);
    expect(JSON.stringify(server.requests[2]?.body.messages)).toContain('sandboxed');

    const events = log.session.events();
    const calls = events.filter((event) => event.type === 'ai-sdk/call');
    const responses = events.filter((event) => event.type === 'ai-sdk/response');
    expect(calls).toHaveLength(3);
    expect(responses).toHaveLength(3);
    expect(events.filter((event) => event.type === 'ai-sdk/tools')).toHaveLength(1);
    // Incremental: later calls store only the messages after the shared prefix.
    const bodies = calls.map(
      (event) => event.body as { messages: unknown[]; base?: { keep: number } },
    );
    expect(bodies.map((body) => body.messages.length)).toEqual([2, 2, 2]);
    expect(bodies.map((body) => body.base?.keep)).toEqual([undefined, 2, 4]);
    expect(responses[2]?.body).toMatchObject({
      content: [{ type: 'text', text: 'The file says sandboxed.' }],
    });

    expect(await verifyRecording(log.session)).toMatchObject({
      ok: true,
      calls: 3,
      responses: 3,
      unanswered: [],
    });
    await log.session.close();
    expect(await verifyRecording(log.path)).toMatchObject({ ok: true, calls: 3, responses: 3 });
  }, 60_000);

  it('records streamed calls the same way (streamText)', async () => {
    server = await createScriptedModelServer({ replies: agentReplies() });
    const model = wrapLanguageModel({
      model: loopbackModel(server.baseUrl),
      middleware: spineRecorder({ session: log.session }),
    });
    const result = streamText({
      model,
      tools: spineTools({ cwd: workspace, approve: async () => 'once' }),
      prompt: 'Write out.txt, then read it.',
      stopWhen: stepCountIs(5),
    });
    expect(await result.text).toBe('The file says sandboxed.');
    const events = log.session.events();
    const calls = events.filter((event) => event.type === 'ai-sdk/call');
    expect(calls.map((event) => (event.body as { mode: string }).mode)).toEqual([
      'stream',
      'stream',
      'stream',
    ]);
    const responses = events.filter((event) => event.type === 'ai-sdk/response');
    expect(responses[0]?.body).toMatchObject({
      content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'bash' }],
    });
    expect(responses[2]?.body).toMatchObject({
      content: [{ type: 'text', text: 'The file says sandboxed.' }],
    });
    expect(responses[2]?.body).toHaveProperty('usage');
    await log.session.close();
    expect(await verifyRecording(log.path)).toMatchObject({ ok: true, calls: 3, responses: 3 });
  }, 60_000);

  it('denies commands when the policy asks and there is no approve callback, and says so', async () => {
    server = await createScriptedModelServer({ replies: agentReplies() });
    const model = wrapLanguageModel({
      model: loopbackModel(server.baseUrl),
      middleware: spineRecorder({ session: log.session }),
    });
    const result = await generateText({
      model,
      tools: spineTools({ cwd: workspace }),
      prompt: 'Write out.txt, then read it.',
      stopWhen: stepCountIs(5),
    });
    const output = result.steps[0]?.toolResults[0]?.output as { isError: boolean; content: string };
    expect(output.isError).toBe(true);
    expect(output.content).toMatch(/denied/i);
    expect(existsSync(join(workspace, 'out.txt'))).toBe(false);
    // The model saw the denial as an error result, and that request is recorded.
    const second = log.session.events().filter((event) => event.type === 'ai-sdk/call')[1];
    expect(JSON.stringify(second?.body)).toMatch(/error-text[^}]*denied/i);
    expect(await verifyRecording(log.session)).toMatchObject({ ok: true });
  }, 60_000);
});

describe('verifyRecording', () => {
  async function recordAgent(): Promise<void> {
    server = await createScriptedModelServer({ replies: agentReplies() });
    const model = wrapLanguageModel({
      model: loopbackModel(server.baseUrl),
      middleware: spineRecorder({ session: log.session }),
    });
    await generateText({
      model,
      tools: spineTools({ cwd: workspace, approve: async () => 'once' }),
      prompt: 'Write out.txt, then read it.',
      stopWhen: stepCountIs(5),
    });
    await log.session.close();
  }

  it('names the event whose byte was flipped (chained JSONL)', async () => {
    await recordAgent();
    const seq = seqOfLineWith(log.path, 'Write out.txt');
    flipByteAt(log.path, 'Write out.txt');
    const result = await verifyRecording(log.path);
    expect(result.ok).toBe(false);
    expect(result.problem).toMatchObject({ kind: 'chain', seq });
    expect(result.problem?.message).toContain(String(seq));
  }, 60_000);

  it('names the altered call by its request hash when the log is not chained', async () => {
    await log.session.close();
    log.cleanup();
    log = await recordingSession({ chain: false });
    await recordAgent();
    // The second call stores the first tool result: alter the text the model saw.
    const seq = seqOfLineWith(log.path, '"call_1"');
    const lines = readFileSync(log.path, 'utf8').split('\n');
    const callSeqs = lines
      .filter((line) => line.includes('"ai-sdk/call"'))
      .map((line) => JSON.parse(line).seq as number);
    flipByteAt(log.path, 'sandboxed\\n');
    const result = await verifyRecording(log.path);
    expect(result.ok).toBe(false);
    expect(result.problem?.kind).toBe('hash');
    const altered = callSeqs.find((callSeq) => callSeq > seq) ?? -1;
    expect(result.problem?.seq).toBe(altered);
    expect(result.problem?.message).toMatch(new RegExp(`^event ${altered}: `));
  }, 60_000);
});
