// The README's example: Spine's coding agent from @spine/harness, without a terminal, against a
// scripted model server on 127.0.0.1 (no key, no network). The configuration is isolated in the
// workspace folder; run with `npx tsx packages/harness/examples/harness-alone.ts [dir]`.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, sessionTotals, startAgentSession } from '@spine/harness';
import { createScriptedModelServer } from '@spine/llm/testing';

const workspace = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'spine-harness-example-'));
writeFileSync(join(workspace, 'notes.md'), 'Build with `npm run build`.\n');
// The model reads notes.md, then answers.
const server = await createScriptedModelServer({
  replies: [
    { toolCalls: [{ name: 'read', arguments: JSON.stringify({ path: 'notes.md' }) }] },
    { text: 'The build command is `npm run build`.' },
  ],
});
process.env.OPENAI_API_KEY ??= 'loopback'; // the key only goes to the loopback server
const { config } = loadConfig({
  cwd: workspace,
  // User-level files (config, memory, AGENTS.md) in the example's folder, not in ~/.config/spine.
  env: { ...process.env, SPINE_CONFIG_HOME: join(workspace, 'config-home') },
  flags: {
    model: 'openai-compatible/deepseek-v4-flash',
    baseUrl: server.baseUrl,
    sessionDir: join(workspace, 'sessions'),
  },
});
const started = await startAgentSession({ config, cwd: workspace, lsp: false, web: false });
try {
  const result = await started.agent.run('What is the build command?', {
    signal: AbortSignal.timeout(60_000),
  });
  console.log(`${result.reason} in ${result.steps} steps: ${result.text}`);
  // Every tool result is in the session log, as the model saw it.
  for (const event of started.session.events())
    if (event.type === 'tool/result') {
      const body = event.body as { toolName: string; content: string };
      console.log(`${body.toolName} -> ${body.content.trim()}`);
    }
  const totals = sessionTotals(started.session);
  console.log(`turns: ${totals.turns}, input tokens: ${totals.own.inputTokens}`);
} finally {
  await started.finish('example done');
  await server.close();
}
console.log(`session: ${started.session.id}`);
