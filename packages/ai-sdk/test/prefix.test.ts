import type { JsonValue } from '@spine/protocol';
import { createMemoryStore, Session } from '@spine/session-log';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AI_SDK_EVENT_TYPES, spineRecorder, verifyRecording } from '../src/index.js';
import { canonicalJson, toJson } from '../src/internal/canonical.js';

const model = { provider: 'test', modelId: 'test-model' };
const doGenerate = async () => ({ content: [{ type: 'text', text: 'ok' }] });

/** Message `n` as the AI SDK builds it at every step: fresh objects around the same strings. */
function message(n: number, text: string): unknown {
  switch (n % 3) {
    case 0:
      return { role: 'user', content: [{ type: 'text', text, providerOptions: undefined }] };
    case 1:
      return {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: `c${n}`, toolName: 'read', input: { path: text } },
        ],
      };
    default:
      return {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: `c${n - 1}`,
            toolName: 'read',
            output: { type: 'text', value: text },
          },
        ],
      };
  }
}

/** How the app changes its history before the next call. */
const change = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('edit' as const), at: fc.nat(), text: fc.string() }),
  fc.record({ kind: fc.constant('reorder' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('mutate' as const), at: fc.nat(), text: fc.string() }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('same' as const) }),
);

describe('the shared prefix', () => {
  it('rebuilds every prompt from the log exactly as the model got it, however the history changes (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 1, maxLength: 8 }), async (changes) => {
        const session = await Session.create({
          store: createMemoryStore(),
          eventTypes: AI_SDK_EVENT_TYPES,
          snapshots: false,
        });
        const recorder = spineRecorder({ session });
        // The app's history: message numbers and texts; each call gets fresh objects from it.
        const history: { n: number; text: string; reordered?: boolean }[] = [];
        let next = 0;
        const sent: string[] = [];
        for (const step of [{ kind: 'append' as const, count: 2 }, ...changes]) {
          const at = 'at' in step && history.length > 0 ? step.at % history.length : -1;
          if (step.kind === 'append')
            for (let i = 0; i < step.count; i++) history.push({ n: next, text: `m${next++}` });
          else if (step.kind === 'edit' && at >= 0)
            history[at] = { ...(history[at] as { n: number }), text: step.text };
          else if (step.kind === 'reorder' && at >= 0)
            history[at] = { ...(history[at] as { n: number; text: string }), reordered: true };
          else if (step.kind === 'truncate' && at >= 0) history.length = at + 1;
          const prompt = [
            { role: 'system', content: 'sys' },
            ...history.map(({ n, text, reordered }) => {
              const built = message(n, text) as Record<string, unknown>;
              // The same members in another order: the same JSON, another walk.
              return reordered ? Object.fromEntries(Object.entries(built).reverse()) : built;
            }),
          ];
          await recorder.wrapGenerate({ doGenerate, params: { prompt }, model });
          sent.push(canonicalJson(toJson(prompt) ?? null));
          // The app changing the objects it passed, after the call, changes nothing recorded.
          if (step.kind === 'mutate' && at >= 0)
            (prompt[at + 1] as { content: unknown }).content = step.text;
        }
        const rebuilt = new Map<number, JsonValue[]>();
        const prompts: string[] = [];
        for (const event of session.events()) {
          if (event.type !== 'ai-sdk/call') continue;
          const body = event.body as {
            base?: { seq: number; keep: number };
            messages: JsonValue[];
          };
          const base = body.base ? (rebuilt.get(body.base.seq) ?? []) : [];
          const messages = [...base.slice(0, body.base?.keep ?? 0), ...body.messages];
          rebuilt.set(event.seq, messages);
          prompts.push(canonicalJson(messages));
        }
        expect(prompts).toEqual(sent);
        expect(await verifyRecording(session)).toMatchObject({ ok: true });
        await session.close();
      }),
      { numRuns: 200 },
    );
  });

  it('finds a change deep in a long history of fresh objects', async () => {
    const session = await Session.create({
      store: createMemoryStore(),
      eventTypes: AI_SDK_EVENT_TYPES,
      snapshots: false,
    });
    const recorder = spineRecorder({ session });
    const texts = Array.from({ length: 300 }, (_, n) => `message ${n}`);
    const build = () => texts.map((text, n) => message(n, text));
    await recorder.wrapGenerate({ doGenerate, params: { prompt: build() }, model });
    await recorder.wrapGenerate({ doGenerate, params: { prompt: build() }, model });
    texts[150] = 'message 150, edited';
    await recorder.wrapGenerate({ doGenerate, params: { prompt: build() }, model });
    const bodies = session
      .events()
      .filter((event) => event.type === 'ai-sdk/call')
      .map((event) => event.body as { base?: { keep: number }; messages: unknown[] });
    expect(bodies.map((body) => [body.base?.keep, body.messages.length])).toEqual([
      [undefined, 300],
      [300, 0],
      [150, 150],
    ]);
    expect(await verifyRecording(session)).toMatchObject({ ok: true, calls: 3 });
    await session.close();
  });
});
