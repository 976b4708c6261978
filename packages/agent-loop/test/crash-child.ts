// Child process of crash.test.ts: runs one agent turn against the scripted server and prints
// progress lines, so the parent can SIGKILL it at a chosen moment.
import { createOpenAICompatibleModel } from '@spine/llm';
import { createJsonlStore, Session } from '@spine/session-log';
import { createToolRuntime, createWorkspaceTools } from '@spine/tool-runtime';
import { createAgent, SystemPrompt } from '../src/index.js';

const config = JSON.parse(process.argv[2] ?? '{}') as {
  baseUrl: string;
  sessionDir: string;
  workspace: string;
  input: string;
  /** The JSONL store's options (default: every append synced). */
  store?: { fsync?: 'always' | 'per-turn' | 'never'; flushIntervalMs?: number };
};
const session = await Session.create({
  store: createJsonlStore({ dir: config.sessionDir, fsync: 'always', ...config.store }),
  cwd: config.workspace,
});
process.stdout.write(`session ${session.id}\n`);
const runtime = createToolRuntime({
  cwd: config.workspace,
  tools: createWorkspaceTools({ cwd: config.workspace }),
  approval: 'never-ask',
});
const agent = createAgent({
  session,
  model: createOpenAICompatibleModel({
    baseUrl: config.baseUrl,
    apiKey: 'test-key',
    provider: 'deepseek',
  }),
  modelId: 'deepseek-v4-flash',
  tools: runtime,
  systemPrompt: new SystemPrompt('You are a test agent.'),
});
agent.on('text-delta', () => process.stdout.write('delta\n'));
agent.on('tool-call', () => process.stdout.write('tool-call\n'));
const result = await agent.run(config.input);
process.stdout.write(`done ${result.reason} ${result.error?.message ?? ''}\n`);
await session.close();
process.exit(0);
