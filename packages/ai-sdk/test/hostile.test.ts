import { readFileSync, rmSync } from 'node:fs';
import { createScriptedModelServer, type ScriptedModelServer, tmpDir } from '@spine/test-utils';
import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spineRecorder, spineTools, verifyRecording } from '../src/index.js';
import { loopbackModel, recordingSession } from './helpers.js';

let server: ScriptedModelServer | undefined;
let workspace: string;
let log: Awaited<ReturnType<typeof recordingSession>>;

beforeEach(async () => {
  workspace = tmpDir('spine-ai-sdk-ws-');
  log = await recordingSession();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await log.session.close().catch(() => undefined);
  log.cleanup();
  rmSync(workspace, { recursive: true, force: true });
});

async function runAgent(toolCalls: { name: string; arguments: string }[], stream = false) {
  server = await createScriptedModelServer({
    replies: [
      { toolCalls: toolCalls.map((call, index) => ({ id: `call_${index + 1}`, ...call })) },
      { text: 'done' },
    ],
  });
  const model = wrapLanguageModel({
    model: loopbackModel(server.baseUrl),
    middleware: spineRecorder({ session: log.session }),
  });
  const options = {
    model,
    tools: spineTools({ cwd: workspace, approve: async () => 'once' as const }),
    prompt: 'go',
    stopWhen: stepCountIs(3),
  };
  const steps = stream ? await streamText(options).steps : (await generateText(options)).steps;
  return { steps, secondRequest: server.requests[1]?.body as { messages: unknown[] } };
}

/** The tool message the model got in the second request, as text. */
function toolMessagesOf(request: { messages: unknown[] }): string {
  return JSON.stringify(request.messages.filter((m) => (m as { role: string }).role === 'tool'));
}

describe('hostile tool calls through spineTools', () => {
  it('answers malformed JSON arguments with a clear error the model sees, and records both sides', async () => {
    const { secondRequest } = await runAgent([{ name: 'read', arguments: '{"path": "a.txt"' }]);
    expect(toolMessagesOf(secondRequest)).toMatch(/Invalid input for tool read|JSON/i);
    const responses = log.session.events().filter((e) => e.type === 'ai-sdk/response');
    // The raw malformed arguments are in the recorded response.
    expect(JSON.stringify(responses[0]?.body)).toContain('{\\"path\\": \\"a.txt\\"');
    expect(await verifyRecording(log.session)).toMatchObject({ ok: true, calls: 2, responses: 2 });
  }, 60_000);

  it('names each field that violates the schema', async () => {
    const { steps } = await runAgent([{ name: 'read', arguments: JSON.stringify({ path: 42 }) }]);
    const output = steps[0]?.toolResults[0]?.output as { isError: boolean; content: string };
    expect(output.isError).toBe(true);
    expect(output.content).toMatch(/path/);
    expect(await verifyRecording(log.session)).toMatchObject({ ok: true });
  }, 60_000);

  it('refuses paths that leave the workspace exactly as inside Spine', async () => {
    const { steps } = await runAgent([
      { name: 'read', arguments: JSON.stringify({ path: '../../../../etc/passwd' }) },
      { name: 'write', arguments: JSON.stringify({ path: '/tmp/spine-escape.txt', content: 'x' }) },
    ]);
    for (const result of steps[0]?.toolResults ?? []) {
      const output = result.output as { isError: boolean; content: string };
      expect(output.isError).toBe(true);
      expect(output.content).toMatch(/Path refused/);
    }
    expect(steps[0]?.toolResults).toHaveLength(2);
    expect(await verifyRecording(log.session)).toMatchObject({ ok: true });
  }, 60_000);

  it('cuts huge output, says so, and records what the model saw (streaming)', async () => {
    const { steps, secondRequest } = await runAgent(
      [{ name: 'bash', arguments: JSON.stringify({ command: 'seq 1 300000' }) }],
      true,
    );
    const output = steps[0]?.toolResults[0]?.output as {
      content: string;
      meta?: { truncated?: boolean };
    };
    expect(output.meta?.truncated).toBe(true);
    expect(output.content.length).toBeLessThan(40_000);
    expect(toolMessagesOf(secondRequest)).toContain('characters of output omitted');
    const call = log.session.events().filter((e) => e.type === 'ai-sdk/call')[1];
    expect(JSON.stringify(call?.body)).toContain('characters of output omitted');
    await log.session.close();
    expect(await verifyRecording(log.path)).toMatchObject({ ok: true, calls: 2 });
  }, 60_000);

  it('records escape sequences verbatim as JSON escapes, never raw bytes in the log', async () => {
    const { steps } = await runAgent([
      {
        name: 'bash',
        arguments: JSON.stringify({ command: "printf '\\033[2J\\033]0;pwned\\007\\r\\000end'" }),
      },
    ]);
    const output = steps[0]?.toolResults[0]?.output as { content: string };
    expect(output.content).toContain('\u001b[2J');
    await log.session.close();
    const text = readFileSync(log.path, 'utf8');
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\u0007');
    expect(text).toContain('\\u001b[2J');
    expect(await verifyRecording(log.path)).toMatchObject({ ok: true });
  }, 60_000);
});

describe('hostile prompts through the recorder', () => {
  it('records and verifies any prompt text and provider options (property)', async () => {
    server = await createScriptedModelServer({ replies: () => ({ text: 'ok' }) });
    const model = wrapLanguageModel({
      model: loopbackModel(server.baseUrl),
      middleware: spineRecorder({ session: log.session }),
    });
    const jsonKey = fc.oneof(
      fc.string(),
      fc.constantFrom('__proto__', 'constructor', '10', '9', ''),
    );
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string({ unit: 'grapheme' }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(jsonKey, tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 4 }),
        json,
        async (texts, extra) => {
          await generateText({
            model,
            messages: texts.map((text) => ({ role: 'user' as const, content: text })),
            providerOptions: { loopback: { extra } as never },
          });
          const result = await verifyRecording(log.session);
          expect(result.problem).toBeUndefined();
          expect(result.ok).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
    const calls = log.session.events().filter((e) => e.type === 'ai-sdk/call');
    expect(calls.length).toBeGreaterThanOrEqual(40);
    await log.session.close();
    expect(await verifyRecording(log.path)).toMatchObject({ ok: true });
  }, 120_000);
});
