// A full agent against DeepSeek: workspace tools in a temp dir, a JSONL session, live output,
// then replay of every recorded request. Skips unless DEEPSEEK_API_KEY is set.
// Run: npx tsx packages/agent-loop/examples/deepseek.ts "Create hello.py that prints hi, then run it"
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeepSeekModel, createModelTable, createRetryPolicy, lookupModel } from '@spine/llm';
import { createJsonlStore, Session } from '@spine/session-log';
import { createToolRuntime, createWorkspaceTools } from '@spine/tool-runtime';
import { createAgent, createEnvironmentContribution, replay, SystemPrompt } from '../src/index.js';

if (!process.env.DEEPSEEK_API_KEY) {
  console.log('DEEPSEEK_API_KEY is not set; skipping the DeepSeek example.');
  process.exit(0);
}
const modelId = process.env.DEEPSEEK_MODEL ?? 'deepseek-v4-flash';
const cwd = mkdtempSync(join(tmpdir(), 'spine-example-'));
const session = await Session.create({
  store: createJsonlStore({ dir: join(cwd, '.sessions') }),
  cwd,
});
const tools = createToolRuntime({
  cwd,
  tools: createWorkspaceTools({ cwd }),
  approval: 'auto-edit',
});
const prompt = new SystemPrompt(
  'You are a careful coding agent. Use the tools; keep answers short.',
);
prompt.register(createEnvironmentContribution({ cwd, sandbox: tools.sandbox }));
const agent = createAgent({
  session,
  model: createDeepSeekModel(),
  modelId,
  contextWindow: lookupModel(createModelTable(), 'deepseek', modelId)?.contextWindow ?? 128_000,
  tools,
  systemPrompt: prompt,
  retryPolicy: createRetryPolicy(),
  approve: async () => 'once',
});
agent.on('text-delta', ({ text }) => process.stdout.write(text));
agent.on('tool-call', ({ call }) => console.log(`\n→ ${call.name} ${call.arguments}`));
agent.on('tool-result', ({ result }) =>
  console.log(`← ${result.outcome ?? 'ok'} (${result.content.length} chars)`),
);
const result = await agent.run(
  process.argv[2] ?? 'Create hello.py that prints "hi", then run it with python3.',
);
console.log(
  `\nturn ended: ${result.reason} after ${result.steps} steps; usage ${JSON.stringify(agent.usage)}`,
);
const report = replay(session);
console.log(
  `replay: ${report.requests.length} requests, ${report.ok ? 'all hashes match' : JSON.stringify(report.firstMismatch)}`,
);
await session.close();
