import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  CompactionSummaryBody,
  ImagePart,
  SessionEvent,
  ToolExecutionContext,
} from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { makePng } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { scriptedSummarizer } from '../test/doubles.js';
import { filler, newSession, toolStep } from '../test/history.js';
import { createCompactionEngine } from './engine.js';
import { compactionProjections } from './projections.js';
import { createRecallHistoryTool } from './recall-history.js';
import { createTokenMeter } from './token-meter.js';

describe('compaction with images', () => {
  it('keeps images out of the summary, records which were folded, and recall brings one back', async () => {
    const session = await newSession();
    const png = makePng(64, 48, { noise: true });
    const sha256 = session.blobs!.put(png);
    expect(sha256).toBe(createHash('sha256').update(png).digest('hex'));
    const image: ImagePart = {
      type: 'image',
      mediaType: 'image/png',
      sha256,
      size: png.length,
      width: 64,
      height: 48,
    };
    const imageSeq = session.append(
      'user/message',
      { content: 'Why does this dialog show an error?', source: 'user', images: [image] },
      { turn: 1, surfaceOp: { op: 'append' } },
    ).seq;
    for (let step = 1; step <= 40; step++) {
      const call = { id: `c${step}`, name: 'read_file', args: { path: `src/module-${step}.ts` } };
      toolStep(session, call, filler(100, step), { turn: 1, step });
    }
    const summarizer = scriptedSummarizer();
    const engine = createCompactionEngine({ meter: createTokenMeter(), summarizer });
    const outcome = await engine.compact({
      contextWindow: 6000,
      system: 'You are a coding agent.',
      tools: [],
      session,
      reason: 'pressure',
      turn: 1,
      step: 40,
    });
    expect(outcome.status).toBe('compacted');
    // The summarizer saw the text of the message, never image bytes.
    const seen = JSON.stringify(summarizer.calls);
    expect(seen).toContain('Why does this dialog show an error?');
    expect(seen).not.toContain(png.toString('base64').slice(0, 40));
    const summary = session
      .events()
      .find((event) => event.type === 'compaction/summary') as SessionEvent<CompactionSummaryBody>;
    expect(summary.body.foldedImages).toEqual([{ seq: imageSeq, image }]);
    const first = session.deriveMessages().messages[0]!;
    expect(first).toMatchObject({ role: 'user', source: 'compact-checkpoint' });
    expect(first.role === 'user' && first.images).toBeFalsy();
    expect(first.role === 'user' && first.content).toContain(
      `- seq ${imageSeq}: image/png 64×48, sha256 ${sha256.slice(0, 12)}`,
    );
    const recall = createRecallHistoryTool({ session });
    const output = await recall.execute({ seq: imageSeq }, {} as ToolExecutionContext);
    expect(output.images).toEqual([image]);
    expect(output.content).toContain(`1 image(s) of event ${imageSeq} attached again`);
  });

  it('keeps listing images an earlier checkpoint folded when a lazily opened session folds that checkpoint again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spine-fold-images-'));
    try {
      const store = createJsonlStore({ dir, fsync: 'never' });
      const projections = compactionProjections as never;
      const session = await Session.create({ store, cwd: '/work/project', projections });
      const png = makePng(32, 32, { noise: true });
      const image: ImagePart = {
        type: 'image',
        mediaType: 'image/png',
        sha256: session.blobs!.put(png),
        size: png.length,
        width: 32,
        height: 32,
      };
      const imageSeq = session.append(
        'user/message',
        { content: 'What is wrong in this screenshot?', source: 'user', images: [image] },
        { turn: 1, surfaceOp: { op: 'append' } },
      ).seq;
      const steps = (from: number): void => {
        for (let step = from; step < from + 40; step++) {
          const call = { id: `c${step}`, name: 'read_file', args: { path: `src/m-${step}.ts` } };
          toolStep(session, call, filler(100, step), { turn: 1, step });
        }
      };
      const compact = (on: Session, step: number) =>
        createCompactionEngine({
          meter: createTokenMeter(),
          summarizer: scriptedSummarizer(),
        }).compact({
          contextWindow: 6000,
          system: 'You are a coding agent.',
          tools: [],
          session: on,
          reason: 'pressure',
          turn: 1,
          step,
        });
      steps(1);
      expect((await compact(session, 40)).status).toBe('compacted');
      const firstSummary = session.events().find((event) => event.type === 'compaction/summary');
      steps(41);
      await session.snapshot();
      const id = session.id;
      await session.close();

      const lazy = await Session.open({ store, id, history: 'lazy', projections });
      try {
        // The first summary (which lists the image) is not held by the lazy session.
        expect(lazy.get(firstSummary!.seq)).toBeUndefined();
        expect((await compact(lazy, 80)).status).toBe('compacted');
        const summaries = lazy
          .events()
          .filter(
            (event): event is SessionEvent<CompactionSummaryBody> =>
              event.type === 'compaction/summary',
          );
        expect(summaries.at(-1)?.body.foldedImages).toEqual([{ seq: imageSeq, image }]);
        const first = lazy.deriveMessages().messages[0]!;
        expect(first.role === 'user' && first.content).toContain(
          `- seq ${imageSeq}: image/png 32×32, sha256 ${image.sha256.slice(0, 12)}`,
        );
      } finally {
        await lazy.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
