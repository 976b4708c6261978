import { describe, expect, it } from 'vitest';
import { answer, newSession, propose, reply, say, toolStep } from '../test/history.js';
import { buildDeterministicCheckpoint, frameCheckpoint } from './checkpoint.js';

describe('buildDeterministicCheckpoint', () => {
  it('records requests, constraints, files, commands, errors with fixes and open items, with seqs', async () => {
    const session = await newSession();
    const request = say(session, 'Make the tests pass. Never run the migration on prod.', {
      turn: 1,
    });
    const read = { id: 'r', name: 'read_file', args: { path: 'src/db.ts' } };
    toolStep(session, read, 'export const url = process.env.DB;', { turn: 1, step: 1 });
    const test1 = { id: 't1', name: 'run_command', args: { command: 'npm test' } };
    propose(session, [test1], { turn: 1, step: 2 });
    const failed = answer(
      session,
      test1,
      'FAIL src/db.test.ts\nError: ECONNREFUSED 127.0.0.1:5432',
      {
        exitCode: 1,
        turn: 1,
        step: 2,
      },
    );
    const edit = { id: 'e', name: 'edit_file', args: { path: 'src/db.ts' } };
    toolStep(session, edit, 'edited', { turn: 1, step: 3 });
    const test2 = { id: 't2', name: 'run_command', args: { command: 'npm test' } };
    toolStep(session, test2, 'all green', { exitCode: 0, turn: 1, step: 4 });
    const lint = { id: 'l', name: 'run_command', args: { command: 'npm run lint' } };
    toolStep(session, lint, "error TS2304: Cannot find name 'foo'", {
      isError: true,
      turn: 1,
      step: 5,
    });
    const search = { id: 's', name: 'grep', args: { pattern: 'TODO', path: 'src' } };
    toolStep(session, search, 'src/app.ts:3: TODO', { turn: 1, step: 6 });
    reply(session, 'Tests pass.\n- [ ] fix the lint error in src/app.ts', { turn: 1, step: 7 });

    const surface = session.surface();
    const { text, facts, coveredSeqs } = buildDeterministicCheckpoint(session, {
      start: surface[0] as number,
      end: surface[surface.length - 1] as number,
    });
    expect(coveredSeqs).toEqual([...surface]);
    expect(facts).toContainEqual({
      kind: 'request',
      text: 'Make the tests pass. Never run the migration on prod.',
      seqs: [request],
    });
    expect(facts).toContainEqual({
      kind: 'constraint',
      text: 'Never run the migration on prod.',
      seqs: [request],
    });
    expect(facts.filter((fact) => fact.kind === 'file-read').map((fact) => fact.text)).toEqual([
      'src/db.ts',
    ]);
    expect(facts.find((fact) => fact.kind === 'file-modified')?.text).toBe('src/db.ts');
    expect(text).toContain('`npm test` → exit 1');
    expect(text).toContain('`npm test` → exit 0');
    const error = facts.find((fact) => fact.kind === 'error' && fact.text.includes('ECONNREFUSED'));
    expect(error?.text).toBe(
      '`npm test` (exit 1): FAIL src/db.test.ts | Error: ECONNREFUSED 127.0.0.1:5432',
    );
    expect(error?.resolution).toMatch(
      /^modified src\/db\.ts \(#\d+\); then `npm test` → exit 0 \(#\d+\)$/,
    );
    expect(error?.seqs).toContain(failed);
    expect(text).toContain('### Errors fixed\n- `npm test` (exit 1): FAIL src/db.test.ts');
    expect(text).toContain(
      "### Errors not yet fixed\n- `npm run lint` (failed): error TS2304: Cannot find name 'foo'",
    );
    expect(text).toContain('- [ ] fix the lint error in src/app.ts');
  });

  it('refuses a region that splits a tool batch', async () => {
    const session = await newSession();
    say(session, 'go', { turn: 1 });
    const call = { id: 'x', name: 'read_file', args: { path: 'a' } };
    const proposal = propose(session, [call], { turn: 1, step: 1 });
    answer(session, call, 'a', { turn: 1, step: 1 });
    expect(() => buildDeterministicCheckpoint(session, { start: 2, end: proposal })).toThrow(
      /split tool batch/,
    );
  });

  it('frames the record and the summary in <compacted-summary> with recall hints', () => {
    const framed = frameCheckpoint({
      compactionId: 9,
      region: { start: 2, end: 8 },
      record: 'R',
      summary: 'S',
    });
    expect(framed.startsWith('<compacted-summary id="9" covers="2-8">')).toBe(true);
    expect(framed.endsWith('</compacted-summary>')).toBe(true);
    expect(framed).toContain('{"compactionId": 9}');
    const fallback = frameCheckpoint({
      compactionId: 9,
      region: { start: 2, end: 8 },
      record: 'R',
      summarizerError: 'boom',
    });
    expect(fallback).toContain('No model summary: boom');
  });
});
