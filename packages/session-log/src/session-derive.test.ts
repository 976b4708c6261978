import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message, ToolResultBody } from '@spine/protocol';
import { isAppendOnly, SpineError } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createDefaultProjector } from './projector.js';
import { Session } from './session.js';
import { createJsonlStore } from './store-jsonl.js';
import { createMemoryStore } from './store-memory.js';

type Command =
  | { kind: 'user'; text: string }
  | { kind: 'assistant'; calls: number }
  | { kind: 'result'; pick: number }
  | { kind: 'replace'; a: number; b: number }
  | { kind: 'noise' }
  | { kind: 'derive' };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('user' as const), text: fc.string({ maxLength: 8 }) }),
  fc.record({ kind: fc.constant('assistant' as const), calls: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant('result' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('result' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('replace' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant('noise' as const) }),
  fc.record({ kind: fc.constant('derive' as const) }),
);

/** Full re-derivation from scratch: the definition incremental derivation must match. */
function naiveDerive(session: Session): Message[] {
  const projector = createDefaultProjector();
  return session.surface().flatMap((seq) => [...projector.project(session.get(seq)!)]);
}

/** Result seq → seq of the assistant message proposing its call, for results on the surface. */
function pairsOnSurface(session: Session): Array<{ result: number; owner: number | undefined }> {
  const surface = session.surface();
  return surface
    .filter((seq) => session.get(seq)!.type === 'tool/result')
    .map((seq) => {
      const id = (session.get(seq)!.body as ToolResultBody).toolCallId;
      const owner = surface.find((candidate) => {
        const event = session.get(candidate)!;
        return (
          event.type === 'assistant/message' && JSON.stringify(event.body).includes(`"id":"${id}"`)
        );
      });
      return { result: seq, owner };
    });
}

/** Runs random commands against `session`, checking derivation and tool pairs along the way. */
async function run(session: Session, commands: readonly Command[]): Promise<void> {
  let nextCall = 0;
  const open: string[] = [];
  const handedOut: { array: readonly Message[]; items: Message[] }[] = [];
  for (const step of commands) {
    if (step.kind === 'user') {
      session.append(
        'user/message',
        { content: step.text, source: 'user' },
        { surfaceOp: { op: 'append' } },
      );
    } else if (step.kind === 'assistant') {
      const ids = Array.from({ length: step.calls }, () => `call-${nextCall++}`);
      const content = [
        { type: 'text', text: 'thinking' },
        ...ids.map((id) => ({ type: 'tool-call', id, name: 'read', arguments: '{}' })),
      ];
      session.append(
        'assistant/message',
        { content, finishReason: 'stop' },
        { surfaceOp: { op: 'append' } },
      );
      open.push(...ids);
    } else if (step.kind === 'result' && open.length > 0) {
      const id = open.splice(step.pick % open.length, 1)[0]!;
      const onSurface = session
        .surface()
        .some((seq) => JSON.stringify(session.get(seq)!.body).includes(`"id":"${id}"`));
      const body = { toolCallId: id, toolName: 'read', content: 'r', isError: false };
      if (onSurface) session.append('tool/result', body, { surfaceOp: { op: 'append' } });
      else
        expect(() =>
          session.append('tool/result', body, { surfaceOp: { op: 'append' } }),
        ).toThrow();
    } else if (step.kind === 'replace') {
      const surface = session.surface();
      if (surface.length === 0) continue;
      const first = Math.min(step.a % surface.length, step.b % surface.length);
      const last = Math.max(step.a % surface.length, step.b % surface.length);
      const inRegion = (seq: number | undefined) => {
        const at = seq === undefined ? -1 : surface.indexOf(seq);
        return at >= first && at <= last;
      };
      const splits = pairsOnSurface(session).some(
        (pair) => inRegion(pair.result) !== inRegion(pair.owner),
      );
      const generation = session.replaceGeneration;
      const append = () =>
        session.append(
          'user/message',
          { content: 'summary', source: 'compact-checkpoint' },
          { surfaceOp: { op: 'replace', start: surface[first]!, end: surface[last]! } },
        );
      if (splits) {
        let code: string | undefined;
        try {
          append();
        } catch (error) {
          code = SpineError.isInstance(error) ? error.code : undefined;
        }
        expect(code).toBe('ILLEGAL_SURFACE_OP');
        expect(session.surface()).toEqual(surface);
      } else {
        append();
        expect(session.replaceGeneration).toBe(generation + 1);
      }
    } else if (step.kind === 'noise') {
      session.append('step/start', {});
    } else if (step.kind === 'derive') {
      const messages = session.deriveMessages().messages;
      expect(messages).toEqual(naiveDerive(session));
      // The arrays are marked append-only: every array handed out earlier still starts with
      // exactly the items it had then (encoders skip comparing them on that promise).
      expect(isAppendOnly(messages)).toBe(true);
      for (const { array, items } of handedOut) {
        expect(array.length).toBeGreaterThanOrEqual(items.length);
        for (let i = 0; i < items.length; i++) expect(array[i]).toBe(items[i]);
      }
      handedOut.push({ array: messages, items: messages.slice() });
    }
    for (const pair of pairsOnSurface(session)) {
      expect(pair.owner).toBeDefined();
      expect(session.surface().indexOf(pair.owner!)).toBeLessThan(
        session.surface().indexOf(pair.result),
      );
    }
  }
}

describe('incremental derivation (property-based)', () => {
  it('equals naive full re-derivation over random appends and replaces, and no replace splits a tool pair', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 60 }), async (commands) => {
        const session = await Session.create({ store: createMemoryStore(), id: 'prop' });
        await run(session, commands);
        const derived = session.deriveMessages();
        expect(derived.messages).toEqual(naiveDerive(session));
        expect(derived.seqs.length).toBe(derived.messages.length);
        expect(derived.generation).toBe(session.replaceGeneration);
      }),
      { numRuns: 150 },
    );
  });

  it('reopens from a JSONL file with the same events, surface and messages', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spine-prop-'));
    try {
      let round = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(command, { maxLength: 40 }), async (commands) => {
          const store = createJsonlStore({ dir, fsync: 'never' });
          const id = `prop-${round++}`;
          const session = await Session.create({ store, id });
          await run(session, commands);
          await session.close();
          const reopened = await Session.open({ store, id, readOnly: true });
          expect(reopened.events()).toEqual(session.events());
          expect(reopened.surface()).toEqual(session.surface());
          expect(reopened.replaceGeneration).toBe(session.replaceGeneration);
          expect(reopened.deriveMessages().messages).toEqual(session.deriveMessages().messages);
          await reopened.close();
        }),
        { numRuns: 30 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
