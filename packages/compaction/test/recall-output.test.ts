// recall_history pages through the whole output of a tool result the agent loop cut to fit the
// window (`tool/output`), and honours the session's own projector and custom event types.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent } from '@spine/agent-loop';
import { createOpenAICompatibleModel, createRetryPolicy } from '@spine/llm';
import type {
  Message,
  Projector,
  SessionEvent,
  ToolDefinition,
  ToolExecutionContext,
  ToolOutput,
} from '@spine/protocol';
import { createDefaultProjector, createMemoryStore, Session } from '@spine/session-log';
import { createScriptedModelServer, type ScriptedReply } from '@spine/test-utils';
import { createToolRuntime } from '@spine/tool-runtime';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createCompactionEngine, createRecallHistoryTool, createTokenMeter } from '../src/index.js';
import { filler, say, toolStep } from './history.js';

const context: ToolExecutionContext = {
  callId: 'recall-1',
  signal: new AbortController().signal,
  cwd: '/work/project',
  sandbox: 'read-only',
};
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** The text between a page's range line and its closing note. */
function pageText(content: string): string {
  const start = content.indexOf(']\n', content.indexOf('\n[characters ')) + 2;
  const end = content.lastIndexOf('\n[');
  return content.slice(start, end);
}

async function sessionWithOutput(content: string) {
  const session = await Session.create({ store: createMemoryStore(), cwd: '/w' });
  cleanups.push(() => session.close());
  say(session, 'Dump the table.', { turn: 1 });
  const output = session.append(
    'tool/output',
    { toolCallId: 'c1', toolName: 'dump', content },
    { turn: 1, step: 1 },
  );
  return { session, seq: output.seq };
}

describe('recall_history pages', () => {
  it('read the whole output exactly, page by page, for any output and page length', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 3000, unit: 'binary' }),
        fc.integer({ min: 1, max: 900 }),
        async (content, length) => {
          const { session, seq } = await sessionWithOutput(content);
          const recall = createRecallHistoryTool({ session, maxChars: 700 });
          let offset = 0;
          let read = '';
          for (let guard = 0; guard < 10_000; guard++) {
            const page = await recall.execute({ seq, offset, length }, context);
            expect(page.isError).toBeUndefined();
            read += pageText(page.content);
            const next = /\{"seq": \d+, "offset": (\d+)\}/.exec(page.content);
            if (!next) break;
            offset = Number(next[1]);
          }
          expect(read).toBe(content);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('say which range they hold, how to get the next one, and where the event ends', async () => {
    const { session, seq } = await sessionWithOutput('abcdefghij');
    const recall = createRecallHistoryTool({ session });
    const first = await recall.execute({ seq, offset: 0, length: 4 }, context);
    expect(first.content).toBe(
      `--- #${seq} · turn 1 step 1 · whole output of tool dump c1 (10 characters) ---\n[characters 0 to 4 of 10]\nabcd\n[6 characters follow; call recall_history with {"seq": ${seq}, "offset": 4} for the next part]`,
    );
    expect(first.meta).toEqual({ recalledSeqs: [seq], offset: 0, end: 4, totalChars: 10 });
    const last = await recall.execute({ seq, offset: 8 }, context);
    expect(last.content.endsWith(`ij\n[end of event #${seq}]`)).toBe(true);
  });

  it('refuse offsets outside the event and offsets without a single seq, saying why', async () => {
    const { session, seq } = await sessionWithOutput('abcdefghij');
    const recall = createRecallHistoryTool({ session });
    const outside = await recall.execute({ seq, offset: 10 }, context);
    expect(outside).toEqual({
      content: `offset 10 is outside event #${seq}, which has 10 characters (offsets 0 to 9).`,
      isError: true,
    });
    const noSeq = await recall.execute({ offset: 0, toolCallId: 'c1' }, context);
    expect(noSeq.isError).toBe(true);
    expect(noSeq.content).toContain('give them with seq alone');
    expect(noSeq.content).toContain('not with toolCallId');
    const header = await recall.execute({ seq: 1, offset: 0 }, context);
    expect(header).toEqual({
      content: 'Event #1 is not a conversation event or tool output in this session log.',
      isError: true,
    });
  });

  it('return the whole output with its call when asked by tool call id', async () => {
    const { session, seq } = await sessionWithOutput('whole output text');
    const recall = createRecallHistoryTool({ session });
    const byId = await recall.execute({ toolCallId: 'c1' }, context);
    expect(byId.meta).toEqual({ recalledSeqs: [seq], truncated: false });
    expect(byId.content).toContain('whole output of tool dump c1');
    expect(byId.content).toContain('whole output text');
  });
});

describe('recall_history in the real agent loop', () => {
  it('pages through a tool result the loop cut to fit, as the truncation note tells the model', async () => {
    // Lines with distinct numbers: many tokens, so it cannot fit a 40k window.
    const original = Array.from({ length: 12_000 }, (_, i) => `row ${i} value ${i * 7919}`).join(
      '\n',
    );
    const dump: ToolDefinition = {
      spec: { name: 'dump', description: 'Dumps the table.', parameters: { type: 'object' } },
      async execute(): Promise<ToolOutput> {
        return { content: original };
      },
    };
    const replies = (request: {
      body: { messages?: { role?: string; content?: unknown }[] };
    }): ScriptedReply => {
      const tools = (request.body.messages ?? []).filter((message) => message.role === 'tool');
      const last = tools.at(-1)?.content;
      if (tools.length === 0) return { toolCalls: [{ id: 'd1', name: 'dump', arguments: '{}' }] };
      const text = typeof last === 'string' ? last : '';
      const next = /recall_history (\{"seq": \d+, "offset": \d+\})/.exec(text);
      if (next && text.includes('tool output cut to fit')) {
        const args = JSON.parse(next[1] as string) as { seq: number; offset: number };
        return {
          toolCalls: [
            {
              id: 'r1',
              name: 'recall_history',
              arguments: JSON.stringify({ ...args, length: 5000 }),
            },
          ],
        };
      }
      return { text: 'done' };
    };
    const server = await createScriptedModelServer({ replies });
    const session = await Session.create({ store: createMemoryStore(), cwd: '/w' });
    const dir = mkdtempSync(join(tmpdir(), 'spine-recall-ws-'));
    cleanups.push(async () => {
      await session.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const model = createOpenAICompatibleModel({
      baseUrl: server.baseUrl,
      apiKey: 'k',
      provider: 'deepseek',
      idleTimeoutMs: 5000,
    });
    const runtime = createToolRuntime({
      cwd: dir,
      tools: [dump, createRecallHistoryTool({ session }) as unknown as ToolDefinition],
      approval: 'never-ask',
      sandboxBackend: null,
      // The runtime's own cap would cut first; this test is about the agent loop's cut.
      maxResultChars: 1_000_000,
    });
    const meter = createTokenMeter();
    const agent = createAgent({
      session,
      model,
      modelId: 'deepseek-v4-flash',
      tools: runtime,
      meter,
      compaction: createCompactionEngine({ meter }),
      contextWindow: 40_000,
      retryPolicy: createRetryPolicy({ baseDelayMs: 5, maxDelayMs: 20, jitter: 0 }),
    });
    await agent.run('Dump the table.');
    const byType = (type: string) => session.events().filter((event) => event.type === type);
    const [output] = byType('tool/output') as SessionEvent<{ content: string }>[];
    expect(output?.body.content).toBe(original);
    const results = byType('tool/result') as SessionEvent<{
      content: string;
      meta?: Record<string, unknown>;
    }>[];
    const cut = results[0];
    expect(cut?.body.meta).toMatchObject({
      truncated: true,
      originalLength: original.length,
      originalSeq: output?.seq,
    });
    expect(cut?.body.content).toContain(
      `read it in parts with recall_history {"seq": ${output?.seq}, "offset": 0}`,
    );
    const page = results[1]?.body.content ?? '';
    expect(page).toContain('[characters 0 to 5000 of');
    expect(pageText(page)).toBe(original.slice(0, 5000));
    expect(byType('turn/end')).toHaveLength(1);
  }, 60_000);
});

describe('recall_history with a custom projector', () => {
  it('renders events through the session projector and registered event types, also once compacted', async () => {
    const base = createDefaultProjector();
    const projector: Projector = {
      specificationVersion: 1,
      project(event) {
        return base
          .project(event)
          .map(
            (message): Message =>
              message.role === 'user'
                ? { ...message, content: `[via projector] ${message.content}` }
                : message,
          );
      },
    };
    const session = await Session.create({
      store: createMemoryStore(),
      cwd: '/w',
      projector,
      eventTypes: [
        {
          type: 'note/added',
          surface: true,
          project: (event) => [
            { role: 'user', content: `NOTE: ${(event.body as { text: string }).text}` },
          ],
        },
      ],
    });
    cleanups.push(() => session.close());
    const asked = say(session, 'Audit the loader; see src/loader.ts', { turn: 1 });
    const note = session.append(
      'note/added',
      { text: 'the loader lives in src/loader.ts' },
      { turn: 1, surfaceOp: { op: 'append' } },
    ).seq;
    for (let step = 1; step <= 30; step++) {
      toolStep(
        session,
        { id: `g${step}`, name: 'grep', args: { pattern: `p${step}` } },
        filler(100, step),
        { turn: 1, step },
      );
    }
    const recall = createRecallHistoryTool({ session });
    const one = await recall.execute({ seq: asked }, context);
    expect(one.content).toContain('[via projector] Audit the loader');
    const custom = await recall.execute({ seq: note }, context);
    expect(custom.content).toContain(
      `--- #${note} · turn 1 · note/added ---\nNOTE: the loader lives`,
    );
    const byPath = await recall.execute({ path: 'src/loader.ts' }, context);
    expect(byPath.meta).toMatchObject({ recalledSeqs: [asked, note] });

    const outcome = await createCompactionEngine({ meter: createTokenMeter() }).compact({
      session,
      reason: 'manual',
      contextWindow: 8000,
      system: '',
      tools: [],
    });
    expect(outcome.status).toBe('compacted');
    const replaced = await recall.execute(
      { compactionId: outcome.compactionId as number },
      context,
    );
    expect(replaced.content).toContain('[via projector] Audit the loader');
    expect(replaced.content).toContain('NOTE: the loader lives in src/loader.ts');
  });
});
