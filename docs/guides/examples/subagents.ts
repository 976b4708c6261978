// Runnable companion of docs/guides/subagents.md. Offline (a scripted loopback model server plays
// the model for the parent and for each child); run with
//   npx tsx docs/guides/examples/subagents.ts
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent, createRecordedModel, rerun, SystemPrompt } from '@spine/agent-loop';
import { createOpenAICompatibleModel } from '@spine/llm';
import { createScriptedModelServer, type ScriptedReply } from '@spine/llm/testing';
import type { ModelClient, SandboxMode } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import {
  BUILTIN_PROFILES,
  createTaskTool,
  mergeProfiles,
  parseProfileFile,
  type RecordedChildren,
  recordedChildren,
  replayTree,
} from '@spine/subagents';
import { createToolRuntime, createWorkspaceTools } from '@spine/tool-runtime';

const root = await mkdtemp(join(tmpdir(), 'spine-subagents-'));
const cwd = join(root, 'workspace');
await mkdir(join(cwd, 'src'), { recursive: true });
await writeFile(join(cwd, 'src/math.ts'), 'export const add = (a: number, b: number) => a - b;\n');

// 1. A custom profile in Claude Code's layout (normally .spine/agents/reviewer.md).
const reviewer = parseProfileFile(
  '---\nname: reviewer\ndescription: Reviews one file for bugs\ntools: Read, Grep\nsandbox: read-only\n---\nYou review code. Answer with file:line and the bug.\n',
  '.spine/agents/reviewer.md',
);
const profiles = mergeProfiles(BUILTIN_PROFILES, [reviewer]);

// 2. The model: each conversation (the parent, each child) is answered from its own script.
const task = (id: string, profile: string, prompt: string) => ({
  id,
  name: 'task',
  arguments: JSON.stringify({ description: prompt.slice(0, 30), prompt, profile }),
});
const scripts: Record<string, ScriptedReply[]> = {
  parent: [
    {
      toolCalls: [
        task('call_1', 'reviewer', 'Review src/math.ts'),
        task('call_2', 'explore', 'Where is add defined?'),
      ],
    },
    { toolCalls: [task('call_3', 'general', 'Fix the bug in add in src/math.ts')] },
    { text: 'add is fixed.' },
  ],
  'Review src/math.ts': [
    { toolCalls: [{ id: 'r1', name: 'read', arguments: '{"path":"src/math.ts"}' }] },
    { text: 'src/math.ts:1 add subtracts: a - b should be a + b.' },
  ],
  'Where is add defined?': [{ text: 'src/math.ts:1' }],
  'Fix the bug in add in src/math.ts': [
    { toolCalls: [{ id: 'g1', name: 'read', arguments: '{"path":"src/math.ts"}' }] },
    {
      toolCalls: [
        {
          id: 'g2',
          name: 'edit',
          arguments: JSON.stringify({
            path: 'src/math.ts',
            edits: [{ oldText: 'a - b', newText: 'a + b' }],
          }),
        },
      ],
    },
    { text: 'Changed a - b to a + b in src/math.ts.' },
  ],
};
const server = await createScriptedModelServer({
  replies: (request) => {
    const messages = request.body.messages as { role: string; content?: unknown }[];
    const first = messages.find((m) => m.role === 'user')?.content;
    const script = scripts[typeof first === 'string' && first in scripts ? first : 'parent'] ?? [];
    const step = messages.filter((m) => m.role === 'assistant').length;
    return script[step] ?? { text: 'out of script' };
  },
});

// 3. The parent: workspace tools plus the task tool. A child's tools are built for the names and
// sandbox the task tool asks for (never more than the parent's, never a wider sandbox).
const store = createJsonlStore({ dir: join(root, 'sessions') });
const toolsFor = (names: readonly string[], sandbox: SandboxMode) =>
  createToolRuntime({
    cwd,
    sandbox,
    approval: 'never-ask',
    sandboxBackend: null,
    tools: createWorkspaceTools({ cwd, sandboxBackend: null }).filter((t) =>
      names.includes(t.spec.name),
    ),
  });
async function parent(model: ModelClient, recorded?: RecordedChildren) {
  const session = await Session.create({ store, cwd });
  const runtime = toolsFor(['read', 'grep', 'glob', 'list', 'edit', 'write'], 'workspace-write');
  runtime.register(
    createTaskTool({
      session,
      store,
      tools: runtime,
      sandbox: () => runtime.sandbox,
      model: { model, modelId: 'deepseek-v4-flash' },
      profiles,
      createTools: (child) => toolsFor(child.tools, child.sandbox),
      ...(recorded ? { childModel: recorded.childModel } : {}),
    }),
  );
  const agent = createAgent({
    session,
    model,
    modelId: 'deepseek-v4-flash',
    tools: runtime,
    systemPrompt: new SystemPrompt('You are a coding agent. Delegate with the task tool.'),
  });
  return { session, agent };
}

const model = createOpenAICompatibleModel({
  baseUrl: server.baseUrl,
  apiKey: 'none',
  provider: 'deepseek',
});
const first = await parent(model);
const result = await first.agent.run('Review and fix src/math.ts');
for (const event of first.session.events())
  if (event.type === 'tool/result') console.log((event.body as { content: string }).content, '\n');
console.log(result.text, '|', (await readFile(join(cwd, 'src/math.ts'), 'utf8')).trim());
await first.session.close();

// 4. Replay the whole tree: every child's requests rebuilt from its own log, links checked.
const tree = await replayTree(store, first.session.id);
console.log(`tree verified: ${tree.ok} (${tree.sessions.length} sessions)`);

// 5. Rerun offline: the parent answers from its recording, each child from its own.
await writeFile(join(cwd, 'src/math.ts'), 'export const add = (a: number, b: number) => a - b;\n');
const recordedEvents = (
  await Session.open({ store, id: first.session.id, readOnly: true })
).events();
const children = await recordedChildren(store, first.session.id);
const recordedModel = createRecordedModel({ events: recordedEvents });
const second = await parent(recordedModel, children);
const report = await rerun(recordedEvents, { agent: second.agent, model: recordedModel });
await second.session.close();
const childReport = await children.compare(store, second.session.id);
console.log(`rerun: parent ${report.ok}, children ${childReport.ok}`);

await server.close();
await rm(root, { recursive: true, force: true });
if (!tree.ok || !report.ok || !childReport.ok) process.exit(1);
