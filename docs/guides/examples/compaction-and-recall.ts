// Runnable companion of docs/guides/compaction-and-recall.md. Offline (scripted model on 127.0.0.1).
//   npx tsx docs/guides/examples/compaction-and-recall.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent, replay } from '@spine/agent-loop';
import {
  createCompactionEngine,
  createModelSummarizer,
  createRecallHistoryTool,
  createTokenMeter,
} from '@spine/compaction';
import { checkCompactionEngine, checkTokenMeter } from '@spine/compaction/testing';
import { createOpenAICompatibleModel } from '@spine/llm';
import type { Summarizer } from '@spine/protocol';
import { createMemoryStore, Session } from '@spine/session-log';
import { createScriptedModelServer, type ScriptedReply } from '@spine/test-utils';
import { createToolRuntime, createWorkspaceTools } from '@spine/tool-runtime';

const words = (count: number, seed: number): string =>
  Array.from({ length: count }, (_, i) => `word${(i * 7 + seed) % 97}`).join(' ');

// The scripted model writes twelve notes, then answers; a second run asks for an old note back.
// Summarisation requests (they start with the summariser's instructions) get a fixed summary.
const agentReplies: ScriptedReply[] = [
  ...Array.from({ length: 12 }, (_, i) => ({
    toolCalls: [
      {
        id: `w${i}`,
        name: 'write',
        arguments: JSON.stringify({
          path: `notes/note-${i}.md`,
          content: `# Note ${i}\n${words(300, i)}\n`,
        }),
      },
    ],
  })),
  { text: 'Twelve notes written.' },
  { toolCalls: [{ id: 'recall1', name: 'recall_history', arguments: '{"toolCallId":"w2"}' }] },
  { text: 'Note 2 starts with "# Note 2".' },
];
const SUMMARY =
  '### Primary Request and Intent\nWrite twelve notes.\n### Files and Code\nnotes/note-*.md\n### Errors and Fixes\nnone\n### Next Step\nfinish the notes\n### Critical Context\nnone';
const server = await createScriptedModelServer({
  replies: (request) => {
    const system = (request.body.messages?.[0]?.content as string | undefined) ?? '';
    return system.startsWith('You write checkpoints')
      ? { text: SUMMARY }
      : (agentReplies.shift() ?? { text: 'out of script' });
  },
});
const model = createOpenAICompatibleModel({
  baseUrl: server.baseUrl,
  apiKey: 'test',
  provider: 'deepseek',
});
const cwd = mkdtempSync(join(tmpdir(), 'spine-compaction-'));

const session = await Session.create({ store: createMemoryStore(), cwd });
const meter = createTokenMeter({ tokenizer: 'o200k' });
const compaction = createCompactionEngine({
  meter,
  summarizer: createModelSummarizer({ model, modelId: 'deepseek-v4-flash' }),
  thresholds: { soft: 0.65, high: 0.8, low: 0.45 },
  background: true,
});
const tools = createToolRuntime({
  cwd,
  tools: [
    ...createWorkspaceTools({ cwd, sandboxBackend: null }),
    createRecallHistoryTool({ session }),
  ],
  approval: 'never-ask',
  sandboxBackend: null,
});
const agent = createAgent({
  session,
  model,
  modelId: 'deepseek-v4-flash',
  tools,
  compaction,
  meter,
  contextWindow: 9_000,
});
agent.on('compaction', ({ turn, step, outcome }) =>
  console.log(
    `turn ${turn} step ${step}: ${outcome.status} ${outcome.tokensBefore} → ${outcome.tokensAfter} tokens (id ${outcome.compactionId})`,
  ),
);

const first = await agent.run('Write twelve notes in notes/. Never delete notes/keep.md.');
console.log('turn 1:', first.reason, first.text);
console.log('calibration factor after the run:', meter.factor.toFixed(3));

const kinds = session
  .events()
  .filter(
    (event) =>
      event.type.startsWith('compaction/') ||
      (event.body && (event.body as { source?: string }).source === 'compact-checkpoint'),
  );
for (const event of kinds) {
  const body = event.body as Record<string, unknown>;
  const detail =
    event.type === 'user/message'
      ? `replace ${JSON.stringify(event.surfaceOp)} sources ${event.sourceEventSeqs?.length}`
      : JSON.stringify(body).slice(0, 110);
  console.log(`#${event.seq} ${event.type} ${detail}`);
}
const checkpoint = kinds.filter((event) => event.type === 'user/message').at(-1);
console.log(
  '\nlatest checkpoint, as the model sees it:\n',
  (checkpoint?.body as { content: string } | undefined)?.content.slice(0, 1400),
  '\n…',
);

const second = await agent.run('What did note 2 start with?');
const recalled = session
  .events()
  .find(
    (event) =>
      event.type === 'tool/result' &&
      (event.body as { toolCallId: string }).toolCallId === 'recall1',
  );
console.log(
  '\nrecall_history answered:\n',
  (recalled?.body as { content: string } | undefined)?.content.slice(0, 400),
);
console.log('turn 2:', second.reason, second.text, '| replay ok:', replay(session, { model }).ok);

// The breaker: a compaction that cannot reach the low mark counts as a failure; three in a row
// turn automatic compaction off for the session.
const stuck = await Session.create({ store: createMemoryStore() });
const say = (turn: number, content: string, pinned = false) => {
  stuck.append(
    'user/message',
    { content, source: 'user', ...(pinned ? { pinned } : {}) },
    { turn, surfaceOp: { op: 'append' } },
  );
  stuck.append(
    'assistant/message',
    { content: [{ type: 'text', text: 'ok' }], finishReason: 'stop' },
    { turn, step: 1, surfaceOp: { op: 'append' } },
  );
};
say(1, `Style guide, keep verbatim: ${words(2500, 1)}`, true); // pinned: carried verbatim by every checkpoint
say(2, words(200, 2));
say(3, words(200, 3));
say(4, 'and now?');
const failing: Summarizer = {
  specificationVersion: 1,
  summarize: async () => {
    throw new Error('summariser offline');
  },
};
const strict = createCompactionEngine({ meter, summarizer: failing, maxConsecutiveFailures: 2 });
for (let i = 0; i < 3; i++) {
  const outcome = await strict.compact({
    session: stuck,
    reason: 'pressure',
    contextWindow: 4_000,
    system: '',
    tools: [],
  });
  console.log(`pressure #${i + 1}: ${outcome.status} — ${outcome.message}`);
}
console.log('state:', JSON.stringify(strict.state(stuck)));

// The conformance kits (@spine/compaction/testing) a meter or engine of your own runs; here
// against Spine's own, each with fresh in-memory sessions.
const kitSessions: Session[] = [];
const kitSession = async () => {
  const session = await Session.create({ store: createMemoryStore(), cwd });
  kitSessions.push(session);
  return session;
};
const meterKit = await checkTokenMeter({ meter: () => createTokenMeter(), session: kitSession });
const engineKit = await checkCompactionEngine({
  engine: () => createCompactionEngine({ meter: createTokenMeter() }),
  session: kitSession,
});
console.log(
  `kits: TokenMeter ${meterKit.passed} passed, CompactionEngine ${engineKit.passed} passed, failed: ${JSON.stringify([...meterKit.failed, ...engineKit.failed])}`,
);
if (!meterKit.ok || !engineKit.ok) process.exitCode = 1;
for (const session of kitSessions) await session.close();

await server.close();
rmSync(cwd, { recursive: true, force: true });
