// Re-records examples/sessions/example-fix-add.jsonl: the real agent (real tool runtime, real
// sandboxed bash, real session log) runs the example task in a temporary copy of
// examples/workspace, against the scripted loopback model server. No key, no network.
// Usage: npx tsx apps/reference-cli/scripts/record-example.ts
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultConfig, fixedModel, wireAgent, writeSessionIndex } from '@spine/harness';
import { createOpenAICompatibleModel } from '@spine/llm';
import { createJsonlStore, Session } from '@spine/session-log';
import { createScriptedModelServer } from '@spine/test-utils';
import { totalUsage } from '@spine/tui';
import { EXAMPLE_REPLIES, EXAMPLE_SESSION_ID, EXAMPLE_TASK } from './example-task.js';

const app = dirname(dirname(fileURLToPath(import.meta.url)));
const sessionDir = join(app, 'examples', 'sessions');
const workspace = join(mkdtempSync(join(tmpdir(), 'spine-record-')), 'workspace');
cpSync(join(app, 'examples', 'workspace'), workspace, { recursive: true });
rmSync(join(sessionDir, `${EXAMPLE_SESSION_ID}.jsonl`), { force: true });

const server = await createScriptedModelServer({ replies: EXAMPLE_REPLIES, promptCache: true });
try {
  const client = createOpenAICompatibleModel({
    baseUrl: server.baseUrl,
    provider: 'deepseek',
    allowNoApiKey: true,
  });
  const modelId = 'deepseek-v4-flash';
  const session = await Session.create({
    store: createJsonlStore({ dir: sessionDir, fsync: 'per-turn' }),
    id: EXAMPLE_SESSION_ID,
    cwd: workspace,
    model: `deepseek/${modelId}`,
    title: 'Fix the failing test of the example workspace',
  });
  const defaults = defaultConfig(process.env);
  const config = {
    ...defaults,
    sessionDir,
    approval: 'never-ask' as const,
    lsp: { enabled: false },
    web: { enabled: false },
    instructions: { enabled: true, userFile: join(workspace, 'no-user-file.md') },
    // No workspace checkpoints: their store (a git repository beside the log) is not shipped with
    // the example, and without it the log's events keep the seqs the guides and tests cite.
    rewind: { ...defaults.rewind, checkpoints: false },
  };
  const wired = await wireAgent({
    config,
    cwd: workspace,
    session,
    model: fixedModel(client, modelId, 1_000_000),
  });
  wired.agent.on('tool-call', ({ call }) => console.log(`→ ${call.name} ${call.arguments}`));
  const result = await wired.agent.run(EXAMPLE_TASK);
  console.log(
    `turn ${result.reason} in ${result.steps} steps; ${server.requests.length} model requests`,
  );
  await wired.close();
  await session.close();
  const usage = totalUsage(session.events());
  writeSessionIndex(sessionDir, EXAMPLE_SESSION_ID, {
    ...(usage.costUsd === undefined ? {} : { costUsd: usage.costUsd }),
    tokens: usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens,
    turns: 1,
    updatedAt: new Date().toISOString(),
  });
  if (result.reason !== 'completed') process.exitCode = 1;
} finally {
  await server.close();
  rmSync(dirname(workspace), { recursive: true, force: true });
}
