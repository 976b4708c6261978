import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, replayThenClose } from '../test/harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await replayThenClose(harness);
  harness = undefined;
});

describe('the events after a response', () => {
  it('end a step without tool calls with message, attempt, step/end and turn/end in a row', async () => {
    harness = await createHarness({ replies: [{ text: 'only answer' }] });
    await harness.agent.run('Say hello.');
    const events = harness.session.events();
    const message = events.findIndex((event) => event.type === 'assistant/message');
    const tail = events.slice(message).map((event) => event.type);
    expect(tail).toEqual(['assistant/message', 'assistant/attempt', 'step/end', 'turn/end']);
    const attempt = events[message + 1]?.body as { messageSeq: number; outcome: string };
    expect(attempt).toMatchObject({ messageSeq: events[message]?.seq, outcome: 'ok' });
    expect(events.at(-1)?.body).toMatchObject({ reason: 'completed', steps: 1 });
    harness.replayOk();
  });

  it('keep the turn going for next-step input queued by a step-end listener', async () => {
    harness = await createHarness({
      replies: [{ text: 'first answer' }, { text: 'second answer' }],
    });
    harness.agent.once('step-end', () => harness?.agent.enqueue('One more thing.', 'next-step'));
    const result = await harness.agent.run('Say hello.');
    expect(result).toMatchObject({ reason: 'completed', steps: 2, text: 'second answer' });
    const ends = harness.events('turn/end');
    expect(ends).toHaveLength(1);
    harness.replayOk();
  });
});
