// attachLiveOutput fed by a stand-in agent (an EventEmitter) with the exact delta sequences QA
// found broken: a CR LF and a surrogate pair cut across deltas, an attempt that broke off and was
// retried, two steps whose text has no final line feed. What is compared is the bytes written.
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import type { Agent } from '@spine/agent-loop';
import { visibleText } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attachLiveOutput, type LiveOptions } from './live.js';
import { styleFor } from './style.js';

const plain = styleFor({ isTTY: false }, {});
const at = { turn: 1, step: 1 };

/** A stream keeping the bytes written to it (strings are encoded at each write, as on stdout). */
function byteSink(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    decodeStrings: true,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** A stand-in agent, its streams, and a function emitting its events. */
function live(options: LiveOptions = {}, shared = false) {
  const agent = new EventEmitter();
  Object.assign(agent, { session: { id: 's1' } });
  const text = byteSink();
  const notices = shared ? text : byteSink();
  attachLiveOutput(
    agent as unknown as Agent,
    { text: text.stream, notices: notices.stream },
    plain,
    options,
  );
  const deltas = (chunks: readonly string[]): void => {
    for (const chunk of chunks) agent.emit('text-delta', { ...at, text: chunk });
  };
  const stepEnd = (step = 1): void => {
    agent.emit('step-end', { turn: 1, step, finishReason: 'stop', toolCalls: 0 });
  };
  const retry = (): void => {
    agent.emit('retry', {
      ...at,
      failedAttempt: 1,
      nextAttempt: 2,
      delayMs: 400,
      reason: 'STREAM_BROKEN',
    });
  };
  const turnEnd = (reason = 'completed'): void => {
    agent.emit('turn-end', { reason, turn: 1, steps: 1, deniedTools: [] });
  };
  return { agent, deltas, stepEnd, retry, turnEnd, out: text.text, notices: notices.text };
}

/** Cuts `text` at the given offsets (UTF-16 code units, so surrogate pairs are cut too). */
function cutAt(text: string, offsets: readonly number[]): string[] {
  const points = [...new Set(offsets.map((offset) => offset % (text.length + 1)))].sort(
    (a, b) => a - b,
  );
  const chunks: string[] = [];
  let from = 0;
  for (const point of points) {
    chunks.push(text.slice(from, point));
    from = point;
  }
  chunks.push(text.slice(from));
  return chunks;
}

const QA_CHUNKS = [
  'one\r',
  '\ntwo\r\n',
  'three\r',
  '\n\r',
  '\nfour\n\nrocket \ud83d',
  '\ude80 end\n',
];

describe('streamed text cut anywhere', () => {
  it('joins a CR LF and a surrogate pair split across deltas (QA crlf scenario)', () => {
    const run = live();
    run.deltas(QA_CHUNKS);
    run.stepEnd();
    run.turnEnd();
    expect(run.out()).toBe('one\ntwo\nthree\n\nfour\n\nrocket 🚀 end\n');
  });

  it('shows a CR left alone at the end of a block, once the block ends', () => {
    const run = live();
    run.deltas(['done\r']);
    expect(run.out()).toBe('done');
    run.stepEnd();
    expect(run.out()).toBe('done\\x0d\n');
  });

  it('joins a surrogate pair split across reasoning deltas too', () => {
    const run = live();
    run.agent.emit('reasoning-delta', { ...at, text: 'hmm \ud83d' });
    run.agent.emit('reasoning-delta', { ...at, text: '\ude80\r' });
    run.agent.emit('reasoning-delta', { ...at, text: '\nok' });
    run.deltas(['answer']);
    run.turnEnd();
    expect(run.out()).toBe('thinking: hmm 🚀\nok\nanswer\n');
  });

  it('prints any text cut into any deltas as it prints it whole', () => {
    const char = fc.constantFrom(
      'a',
      ' ',
      '\r',
      '\n',
      '\t',
      '\u001b',
      '\ud83d',
      '\ude80',
      'é',
      '\u202e',
    );
    const text = fc.array(char, { maxLength: 40 }).map((chars) => chars.join(''));
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 8 }), (whole, offsets) => {
        const once = live();
        once.deltas([whole]);
        once.turnEnd();
        const cut = live();
        cut.deltas(cutAt(whole, offsets));
        cut.turnEnd();
        expect(cut.out()).toBe(once.out());
        const safe = visibleText(whole, { keepLineBreaks: true });
        expect(once.out()).toBe(
          Buffer.from(safe === '' || safe.endsWith('\n') ? safe : `${safe}\n`).toString('utf8'),
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe('an attempt that broke off and was retried', () => {
  const partial = ['Partial answer line one.\n\n', 'Second paragraph '];
  const answer = ['Partial answer line one.\n\n', 'Second paragraph and the rest.\n'];

  it('writes only the kept attempt when attempts are held (a pipe)', () => {
    const run = live({ holdAttempts: true });
    run.deltas(partial);
    expect(run.out()).toBe('');
    run.retry();
    run.deltas(answer);
    run.stepEnd();
    run.turnEnd();
    expect(run.out()).toBe(answer.join(''));
    expect(run.notices()).toContain('retry: attempt 2 in 400 ms (STREAM_BROKEN)');
  });

  it('keeps the order of notices sharing the held stream', () => {
    const run = live({ holdAttempts: true }, true);
    run.deltas(partial);
    run.retry();
    run.deltas(answer);
    run.stepEnd();
    expect(run.out()).toBe(`  retry: attempt 2 in 400 ms (STREAM_BROKEN)\n${answer.join('')}`);
  });

  it('marks the abandoned text as discarded before the retry on a terminal', () => {
    const run = live({}, true);
    run.deltas(partial);
    run.retry();
    run.deltas(answer);
    run.stepEnd();
    expect(run.out()).toBe(
      [
        'Partial answer line one.',
        '',
        'Second paragraph ',
        '  — attempt 1 broke off, retrying; the text above is discarded —',
        '  retry: attempt 2 in 400 ms (STREAM_BROKEN)',
        'Partial answer line one.',
        '',
        'Second paragraph and the rest.',
        '',
      ].join('\n'),
    );
  });

  it.each([
    ['apart', false, ''],
    ['sharing the held stream', true, '  retry: attempt 2 in 400 ms (STREAM_BROKEN)\n'],
  ])(
    'writes nothing of a last attempt that broke off too when the turn failed (a pipe; notices %s)',
    (_how, shared, out) => {
      const run = live({ holdAttempts: true }, shared);
      run.deltas(partial);
      run.retry();
      run.deltas(partial);
      run.turnEnd('error');
      expect(run.out()).toBe(out);
      expect(run.notices()).toContain('retry: attempt 2 in 400 ms (STREAM_BROKEN)');
    },
  );

  it('marks the last attempt as discarded when the turn failed on a terminal', () => {
    const run = live({}, true);
    run.deltas(partial);
    run.turnEnd('error');
    expect(run.out()).toBe(
      [
        'Partial answer line one.',
        '',
        'Second paragraph ',
        '  — the attempt broke off; the text above is discarded —',
        '',
      ].join('\n'),
    );
  });

  it('still writes what an aborted turn streamed, held or not', () => {
    const run = live({ holdAttempts: true });
    run.deltas(partial);
    run.turnEnd('aborted');
    expect(run.out()).toBe(`${partial.join('')}\n`);
  });

  it('prints no mark when the failed attempt had shown nothing', () => {
    const run = live({}, true);
    run.retry();
    run.deltas(['Answer.\n']);
    run.stepEnd();
    expect(run.out()).toBe('  retry: attempt 2 in 400 ms (STREAM_BROKEN)\nAnswer.\n');
  });

  it('marks the abandoned block once rendered as Markdown', () => {
    const run = live({ markdown: { width: 80 } }, true);
    run.deltas(partial);
    run.retry();
    run.deltas(['Answer.']);
    run.stepEnd();
    run.turnEnd();
    const lines = run.out().split('\n');
    const mark = lines.findIndex((line) => line.includes('attempt 1 broke off'));
    expect(lines.slice(0, mark)).toContain('Second paragraph');
    expect(lines.slice(mark)).toContain('Answer.');
    expect(lines.filter((line) => line === 'Answer.')).toHaveLength(1);
  });
});

describe('text of consecutive steps', () => {
  const steps = ['First answer without trailing newline.', 'Second step answer.'];

  it('ends a step without a final line feed before the next step (piped)', () => {
    const run = live({ holdAttempts: true });
    run.deltas([steps[0] as string]);
    run.stepEnd(1);
    run.deltas([steps[1] as string]);
    run.stepEnd(2);
    run.turnEnd();
    expect(run.out()).toBe('First answer without trailing newline.\nSecond step answer.\n');
  });

  it('sets two steps apart by a blank line when rendered', () => {
    const run = live({ markdown: { width: 80 } });
    run.deltas(['Fi', 'rst answer without trailing newline.']);
    run.stepEnd(1);
    run.deltas(['Second ', 'step answer.']);
    run.stepEnd(2);
    run.turnEnd();
    expect(run.out()).toBe('First answer without trailing newline.\n\nSecond step answer.\n');
  });
});
