import { createHash } from 'node:crypto';
import type {
  CompactionSummaryBody,
  ImagePart,
  SessionEvent,
  ToolExecutionContext,
} from '@spine/protocol';
import { makePng } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { scriptedSummarizer } from '../test/doubles.js';
import { filler, newSession, toolStep } from '../test/history.js';
import { createCompactionEngine } from './engine.js';
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
});
