// Runnable companion of the "Build your own agent" section of docs/guides/getting-started.md.
// Offline: the model is a scripted OpenAI-compatible server on 127.0.0.1. With a real key, use
// createDeepSeekModel() instead and drop the server.
//   npx tsx docs/guides/examples/agent-quickstart.ts
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createAgent,
  createEnvironmentContribution,
  replay,
  SystemPrompt,
} from '@spine/agent-loop';
import { createOpenAICompatibleModel, createRetryPolicy } from '@spine/llm';
import { createJsonlStore, Session } from '@spine/session-log';
import { createScriptedModelServer } from '@spine/test-utils';
import { createToolRuntime, createWorkspaceTools } from '@spine/tool-runtime';

const server = await createScriptedModelServer({
  replies: [
    {
      reasoning: 'Create the file with the write tool.',
      toolCalls: [
        { name: 'write', arguments: '{"path":"hello.py","content":"print(\\"hi\\")\\n"}' },
      ],
    },
    { text: 'Created hello.py; it prints "hi".' },
  ],
});
const cwd = await mkdtemp(join(tmpdir(), 'spine-quickstart-'));
const model = createOpenAICompatibleModel({ baseUrl: server.baseUrl, apiKey: 'test' });

const session = await Session.create({
  store: createJsonlStore({ dir: join(cwd, '.spine', 'sessions') }),
  cwd,
  title: 'hello',
});
const tools = createToolRuntime({
  cwd,
  tools: createWorkspaceTools({ cwd }),
  approval: 'auto-edit',
});
const prompt = new SystemPrompt('You are a careful coding agent.');
prompt.register(createEnvironmentContribution({ cwd, sandbox: tools.sandbox }));
const agent = createAgent({
  session,
  model,
  modelId: 'deepseek-v4-flash',
  tools,
  systemPrompt: prompt,
  retryPolicy: createRetryPolicy(),
});
agent.on('tool-call', ({ call }) => console.log(`→ ${call.name} ${call.arguments}`));
agent.on('text-delta', ({ text }) => process.stdout.write(text));
const result = await agent.run('Create hello.py that prints hi');
console.log(`\n${result.reason} after ${result.steps} steps`);
console.log('hello.py:', JSON.stringify(await readFile(join(cwd, 'hello.py'), 'utf8')));
const report = replay(session, { model });
console.log('replay:', report.ok, `${report.requests.length} requests verified`);
// What exactly did the model see at step 2? Rebuilt from the log, verified, as wire bytes.
replay(session, {
  onRequest: (request, verdict) => {
    if (verdict.step !== 2 || !verdict.ok) return;
    const last = request.messages.at(-1);
    const bytes = Buffer.byteLength(model.encodeRequest?.(request) ?? '');
    console.log(
      `step 2: ${request.messages.length} messages, ${bytes} bytes, last from ${last?.role}`,
    );
  },
});
console.log('log:', join('.spine', 'sessions', `${session.id}.jsonl`), `${session.lastSeq} events`);
await session.close();
await server.close();
await rm(cwd, { recursive: true, force: true });
