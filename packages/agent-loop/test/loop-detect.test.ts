import type { LoopDetectedBody, TurnEndBody, UserMessageBody } from '@spine/protocol';
import type { ScriptedReply } from '@spine/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import { LOOP_NOTE_SOURCE, LoopDetectedError } from '../src/index.js';
import { createHarness, type Harness, replayThenClose, wireMessages } from './harness.js';

let harness: Harness | undefined;
afterEach(async () => {
  const finished = harness;
  harness = undefined;
  await replayThenClose(finished);
});

/** `count` replies that each read the same file. */
function sameRead(count: number): ScriptedReply[] {
  return Array.from({ length: count }, (_, i) => ({
    toolCalls: [{ id: `c${i + 1}`, name: 'read', arguments: '{"path":"a.txt"}' }],
  }));
}

describe('loop detection in the agent loop, against a loopback model server', () => {
  it('tells the model at the threshold, then ends the turn stuck when the loop goes on', async () => {
    harness = await createHarness({ replies: sameRead(8), loops: {} });
    const result = await harness.agent.run('Read a.txt.');
    expect(result.reason).toBe('stuck');
    expect(result.error).toBeInstanceOf(LoopDetectedError);
    expect(result.error?.code).toBe('LOOP_DETECTED');
    // Noted at the third identical call, stopped two steps later (stopAfter 2).
    expect(result.steps).toBe(5);
    expect(harness.server.requests).toHaveLength(5);
    const loops = harness.events('loop/detected');
    expect(loops.map((event) => [(event.body as LoopDetectedBody).action, event.step])).toEqual([
      ['noted', 3],
      ['stopped', 5],
    ]);
    const noted = loops[0]?.body as LoopDetectedBody;
    expect(noted).toMatchObject({ kind: 'repeated-call', count: 3, threshold: 3 });
    const assistantSeqs = harness.events('assistant/message').map((event) => event.seq);
    expect(noted.evidence).toEqual(assistantSeqs.slice(0, 3));
    // The note is on the surface, after step 3's tool result, and the fourth request carries it.
    const note = harness
      .events('user/message')
      .find((event) => (event.body as UserMessageBody).source === LOOP_NOTE_SOURCE);
    if (!note) throw new Error('no loop note in the log');
    expect(note.step).toBe(3);
    expect((note.body as UserMessageBody).meta).toEqual({ loopSeq: loops[0]?.seq });
    const fourth = wireMessages(harness.server.requests[3] as { body: unknown });
    expect(fourth.at(-1)).toMatchObject({ role: 'user' });
    expect(fourth.at(-1)?.content).toContain('<loop-detector kind="repeated-call">');
    expect(wireMessages(harness.server.requests[2] as { body: unknown }).at(-1)?.role).toBe('tool');
    const end = harness.events('turn/end')[0]?.body as TurnEndBody;
    expect(end.reason).toBe('stuck');
    expect(end.error?.message).toContain('repeated-call');
    harness.replayOk();
  });

  it('lets a turn go on when the model changes course after the note', async () => {
    harness = await createHarness({
      replies: [
        ...sameRead(3),
        { toolCalls: [{ id: 'w', name: 'write', arguments: '{"path":"b.txt","content":"b"}' }] },
        { text: 'Done differently.' },
      ],
      loops: {},
    });
    const result = await harness.agent.run('Read a.txt.');
    expect(result.reason).toBe('completed');
    expect(harness.events('loop/detected')).toHaveLength(1);
  });

  it('ends a final answer that repeats itself as stuck (no later step could be told)', async () => {
    const paragraph =
      'I will now check the configuration file again to see whether the value is set correctly before continuing with the next part of the task.';
    harness = await createHarness({
      replies: [{ text: [paragraph, paragraph, paragraph, paragraph].join('\n\n') }],
      loops: {},
    });
    const result = await harness.agent.run('Check the config.');
    expect(result.reason).toBe('stuck');
    expect(harness.events('loop/detected').map((event) => event.body)).toMatchObject([
      { kind: 'repeated-text', action: 'stopped' },
    ]);
  });

  it('stays off unless thresholds are given', async () => {
    harness = await createHarness({ replies: [...sameRead(5), { text: 'ok' }] });
    const result = await harness.agent.run('Read a.txt.');
    expect(result.reason).toBe('completed');
    expect(harness.events('loop/detected')).toHaveLength(0);
  });
});
