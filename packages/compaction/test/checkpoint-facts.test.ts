import type { SessionEvent, SessionLog } from '@spine/protocol';
import { describe, expect, it } from 'vitest';
import { buildDeterministicCheckpoint } from '../src/checkpoint.js';
import type { CheckpointFact } from '../src/checkpoint-facts.js';
import { constraintShapeOf, constraintsOf } from '../src/constraints.js';
import { createCompactionEngine } from '../src/engine.js';
import { openItemsOf } from '../src/open-items.js';
import { createTokenMeter } from '../src/token-meter.js';
import { newSession, propose, reply, say, toolStep } from './history.js';

function whole(session: SessionLog) {
  const surface = session.surface();
  return buildDeterministicCheckpoint(session, {
    start: surface[0] as number,
    end: surface[surface.length - 1] as number,
  });
}

const run = (id: string, command: string) => ({ id, name: 'bash', args: { command } });

/** Compacts everything but the latest step, with no model summary. */
async function compactAll(session: SessionLog) {
  const engine = createCompactionEngine({ meter: createTokenMeter(), keepRecent: { tokens: 0 } });
  const outcome = await engine.compact({
    session,
    reason: 'manual',
    contextWindow: 1_000_000,
    system: 'S',
    tools: [],
  });
  expect(outcome.status).toBe('compacted');
  const summaries = session.events().filter((event) => event.type === 'compaction/summary');
  const latest = summaries.at(-1) as SessionEvent;
  const checkpoint = session.deriveMessages().messages[0];
  return {
    facts: (latest.body as { facts: CheckpointFact[] }).facts,
    text: checkpoint?.role === 'user' ? checkpoint.content : '',
  };
}

describe('open items over the whole region', () => {
  it('keeps an open item when the model goes on talking, with its seq', async () => {
    const session = await newSession();
    say(session, 'Add retries to the sync client.', { turn: 1 });
    const stated = reply(
      session,
      'I added the backoff helper.\nNext step: wire the retry into sync()\nThe helper lives in src/backoff.ts.',
      { turn: 1, step: 1 },
    );
    say(session, 'ok', { turn: 2 });
    reply(session, 'Looking at the client now.', { turn: 2, step: 1 });
    toolStep(session, { id: 'r', name: 'read_file', args: { path: 'src/client.ts' } }, 'x', {
      turn: 2,
      step: 2,
    });
    reply(session, 'The client has three call sites.', { turn: 2, step: 3 });
    const { facts, text } = whole(session);
    expect(facts).toContainEqual({
      kind: 'open-item',
      text: 'Next step: wire the retry into sync()',
      seqs: [stated],
    });
    expect(text).toContain('### Open items\n- Next step: wire the retry into sync()');
  });

  it('records the model saying the item is done, quoting it', async () => {
    const session = await newSession();
    say(session, 'Add retries.', { turn: 1 });
    reply(session, 'Next step: wire the retry into sync()', { turn: 1, step: 1 });
    const done = reply(session, 'Done: the retry is now wired into sync() with three attempts.', {
      turn: 1,
      step: 2,
    });
    const item = whole(session).facts.find((fact) => fact.kind === 'open-item');
    expect(item).toMatchObject({
      text: 'Next step: wire the retry into sync()',
      resolvedAt: done,
      resolution: 'the model said: "Done: the retry is now wired into sync() with three attempts."',
    });
  });

  it('resolves an item when the command or file it names succeeds, not before', async () => {
    const session = await newSession();
    say(session, 'Tidy up.', { turn: 1 });
    reply(
      session,
      '- [ ] run `npm run lint` once the imports are sorted\nTODO: update docs/setup.md',
      {
        turn: 1,
        step: 1,
      },
    );
    toolStep(session, run('l1', 'npm run lint'), 'src/a.ts:1:1 - error TS1005: expected', {
      exitCode: 1,
      turn: 1,
      step: 2,
    });
    let items = whole(session).facts.filter((fact) => fact.kind === 'open-item');
    expect(items.every((fact) => fact.resolvedAt === undefined)).toBe(true);
    toolStep(session, run('l2', 'npm run lint'), 'clean', { exitCode: 0, turn: 1, step: 3 });
    const write = { id: 'w', name: 'write', args: { path: 'docs/setup.md', content: '# Setup' } };
    toolStep(session, write, 'wrote docs/setup.md', { turn: 1, step: 4 });
    items = whole(session).facts.filter((fact) => fact.kind === 'open-item');
    expect(items.map((fact) => [fact.text, fact.resolution?.replace(/#\d+/, '#N')])).toEqual([
      ['- [ ] run `npm run lint` once the imports are sorted', '`npm run lint` → exit 0 (#N)'],
      ['TODO: update docs/setup.md', 'modified docs/setup.md (#N)'],
    ]);
  });

  it('recognises open items in varied phrasing and ignores finished work', () => {
    const text = [
      'I fixed the parser.',
      'I still need to update the changelog.',
      'After that I will bump the version.',
      'Remaining: the Windows path handling.',
      '- [x] tests pass',
      'The migration has not been run yet.',
      'The build is green.',
      'The next step is to add pagination to list().',
      'Still open: the flaky test in retry.spec.ts.',
      'Tests pass now; next step: run the e2e suite.',
      'We should also bump the schema later.',
      'Once CI is green, I will tag the release.',
    ].join('\n');
    expect(openItemsOf(text)).toEqual([
      'I still need to update the changelog.',
      'After that I will bump the version.',
      'Remaining: the Windows path handling.',
      'The migration has not been run yet.',
      'The next step is to add pagination to list().',
      'Still open: the flaky test in retry.spec.ts.',
      'Tests pass now; next step: run the e2e suite.',
      'We should also bump the schema later.',
      'Once CI is green, I will tag the release.',
    ]);
  });
});

describe('error lines', () => {
  it('are found in the whole output when the result the model saw was cut to fit the window', async () => {
    const session = await newSession();
    say(session, 'Run the suite.', { turn: 1 });
    const call = run('t', 'pytest');
    propose(session, [call], { turn: 1, step: 1 });
    const output = `${'collected 1 item\n'.repeat(50)}E   AssertionError: expected 3 rows, got 4\n${'ok\n'.repeat(50)}`;
    const original = session.append(
      'tool/output',
      { toolCallId: 't', toolName: 'bash', content: output },
      { turn: 1, step: 1 },
    ).seq;
    session.append(
      'tool/result',
      {
        toolCallId: 't',
        toolName: 'bash',
        content: 'collected 1 item\n[tool output cut to fit the context window]\nok\n[exit code 1]',
        isError: true,
        meta: { exitCode: 1, truncated: true, originalSeq: original },
      },
      { surfaceOp: { op: 'append' }, turn: 1, step: 1 },
    );
    const error = whole(session).facts.find((fact) => fact.kind === 'error');
    expect(error?.text).toBe('`pytest` (exit 1): E   AssertionError: expected 3 rows, got 4');
  });
});

describe('facts re-checked on carry-over', () => {
  it('moves an error carried from an older checkpoint to fixed when the command later passes', async () => {
    const session = await newSession();
    say(session, 'Make the import test pass.', { turn: 1 });
    const failing = 'E       AssertionError: expected 3 rows, got 4';
    const failed = { id: 't1', name: 'bash', args: { command: 'pytest tests/test_import.py' } };
    toolStep(
      session,
      failed,
      `collected 6 items\n${failing}\n==== 1 failed, 5 passed in 0.2s ====`,
      {
        exitCode: 1,
        turn: 1,
        step: 1,
      },
    );
    reply(session, 'Next step: dedupe rows in load_rows()', { turn: 1, step: 2 });
    toolStep(session, run('x', 'ls'), 'tests', { exitCode: 0, turn: 1, step: 3 });
    const first = await compactAll(session);
    expect(first.text).toContain(
      `### Errors not yet fixed\n- \`pytest tests/test_import.py\` (exit 1): ${failing}`,
    );

    const edit = { id: 'e', name: 'edit', args: { path: 'etl/rows.py' } };
    toolStep(session, edit, 'applied', { turn: 1, step: 4 });
    toolStep(session, run('t2', 'pytest'), '==== 6 passed in 0.2s ====', {
      exitCode: 0,
      turn: 1,
      step: 5,
    });
    const fix = session.lastSeq;
    reply(session, 'Done: load_rows() now dedupes rows, all tests pass.', { turn: 1, step: 6 });
    toolStep(session, run('y', 'git status'), 'clean', { exitCode: 0, turn: 1, step: 7 });
    const second = await compactAll(session);
    const error = second.facts.find((fact) => fact.kind === 'error');
    expect(error).toMatchObject({ resolvedAt: fix });
    expect(error?.resolution).toMatch(/^modified etl\/rows\.py \(#\d+\); then `pytest` → exit 0/);
    expect(second.text).toContain('### Errors fixed\n- `pytest tests/test_import.py` (exit 1)');
    expect(second.text).not.toContain('### Errors not yet fixed');
    const item = second.facts.find((fact) => fact.kind === 'open-item');
    expect(item).toMatchObject({
      text: 'Next step: dedupe rows in load_rows()',
      resolvedAt: fix + 1,
    });
    expect(second.text).toContain(
      '### Open items resolved\n- Next step: dedupe rows in load_rows()',
    );
  });

  it('keeps a carried error unresolved while a different command passes', async () => {
    const session = await newSession();
    say(session, 'Fix the build.', { turn: 1 });
    toolStep(
      session,
      run('b1', 'npm run build'),
      'Error: Missing environment variable API_BASE_URL',
      {
        exitCode: 1,
        turn: 1,
        step: 1,
      },
    );
    toolStep(session, run('x', 'ls'), 'src', { exitCode: 0, turn: 1, step: 2 });
    await compactAll(session);
    toolStep(session, { id: 'e', name: 'edit', args: { path: 'src/a.ts' } }, 'ok', {
      turn: 1,
      step: 3,
    });
    toolStep(session, run('l', 'npm run lint'), 'clean', { exitCode: 0, turn: 1, step: 4 });
    toolStep(session, run('y', 'ls'), 'src', { exitCode: 0, turn: 1, step: 5 });
    const second = await compactAll(session);
    expect(second.facts.find((fact) => fact.kind === 'error')?.resolvedAt).toBeUndefined();
    expect(second.text).toContain(
      '### Errors not yet fixed\n- `npm run build` (exit 1): Error: Missing environment variable API_BASE_URL',
    );
  });
});

describe('constraints by meaning', () => {
  const constraints = [
    'The test env needs DB_URL set; skip the DB tests if it is empty.',
    'Leave the generated client alone.',
    'Node 18 has to keep working.',
    'Only the billing package is in scope.',
    'Tabs, not spaces.',
    'I would rather keep the old API around for one release.',
    'Use pnpm instead of npm here.',
    'Run the slow suite only at the end.',
    'CI runs with NODE_ENV=production.',
    'No new dependencies.',
    'Before you push, rebase on main.',
    'Changes to the schema go through a migration.',
    'Stay on Node 20.',
    'Keep commits small, one per module.',
    'Port 8080 is reserved for the mock server.',
    'The public API of the store is frozen.',
  ];
  const tasks = [
    'Fix the parser.',
    'Write six notes.',
    'What was note 2 about?',
    'Make the tests pass.',
    'Continue the billing refactor.',
    'Add a --json flag to the export command.',
  ];

  it('lists conditions, prohibitions, required settings and preferences, without trigger words', () => {
    for (const sentence of constraints)
      expect([sentence, constraintShapeOf(sentence)]).not.toEqual([sentence, undefined]);
    for (const sentence of tasks)
      expect([sentence, constraintShapeOf(sentence)]).toEqual([sentence, undefined]);
  });

  it('keeps each constraint sentence verbatim and whole', () => {
    const message = `Please add the export.\n${constraints.slice(0, 3).join(' ')} Thanks.`;
    expect(constraintsOf(message)).toEqual(constraints.slice(0, 3));
  });
});

describe('a checkpoint with many unfixed errors', () => {
  it('still fits a small window: unfixed errors are limited only as the last resort', async () => {
    const session = await newSession();
    say(session, 'Fix every package. Never touch vendor/.', { turn: 1 });
    for (let index = 0; index < 60; index++) {
      const detail = `${'x'.repeat(300)} in package ${index}`;
      toolStep(
        session,
        run(`b${index}`, `npm run build -w pkg-${index}`),
        `Error: build of pkg-${index} failed: ${detail}\nerror: could not compile pkg-${index}: ${detail}`,
        { exitCode: 1, turn: 1, step: index + 1 },
      );
    }
    const engine = createCompactionEngine({ meter: createTokenMeter() });
    const outcome = await engine.compact({
      session,
      reason: 'pressure',
      contextWindow: 6000,
      system: 'S',
      tools: [],
    });
    expect(outcome.status).toBe('compacted');
    const checkpoint = session.deriveMessages().messages[0];
    const text = checkpoint?.role === 'user' ? checkpoint.content : '';
    expect(text).toContain('Never touch vendor/.');
    expect(text).toMatch(
      /### Errors not yet fixed\n- \(\d+ earlier entries left out; recall_history finds them\)/,
    );
  });
});

describe('files modified in a small window', () => {
  it('keeps every modified file, carried from an earlier checkpoint, when long lists are limited', async () => {
    // Found by retention-sessions.test.ts: writes of an early turn, carried by a checkpoint into a
    // later one that only fitted with lists cut to their latest 3 entries, were left out of
    // "Files modified" (the later writes were kept).
    const session = await newSession();
    say(session, 'Add the feature modules.', { turn: 1 });
    const written = Array.from({ length: 5 }, (_, index) => `src/features/feature-${index}.ts`);
    written.forEach((path, index) => {
      toolStep(
        session,
        { id: `w${index}`, name: 'write', args: { path, content: 'x' } },
        `Created ${path}.`,
        {
          turn: 1,
          step: index + 1,
        },
      );
    });
    await compactAll(session);
    say(session, 'Now make every package build.', { turn: 2 });
    for (let index = 0; index < 12; index++) {
      const detail = `${'y'.repeat(280)} in crate ${index}`;
      const build = run(`b${index}`, `cargo build -p crate-${index}`);
      const where = { turn: 2, step: 2 * index + 1 };
      toolStep(
        session,
        build,
        `error[E0425]: cannot find value in crate-${index}: ${detail}\nerror: could not compile crate-${index}: ${detail}\nnote: ${detail}`,
        { exitCode: 101, ...where },
      );
      toolStep(session, { ...build, id: `ok${index}` }, 'Finished', {
        exitCode: 0,
        turn: 2,
        step: where.step + 1,
      });
    }
    const engine = createCompactionEngine({ meter: createTokenMeter() });
    const outcome = await engine.compact({
      session,
      reason: 'manual',
      contextWindow: 6000,
      system: 'S',
      tools: [],
    });
    expect(outcome.status).toBe('compacted');
    const checkpoint = session.deriveMessages().messages[0];
    const text = checkpoint?.role === 'user' ? checkpoint.content : '';
    // The long lists were limited ...
    expect(text).toMatch(/### Errors fixed\n- \(\d+ earlier entries left out/);
    // ... but not the files modified.
    const files = /### Files modified\n((?:- .*\n?)*)/.exec(text)?.[1] ?? '';
    expect(files).not.toContain('left out');
    for (const path of written) expect(files).toContain(path);
  });
});

describe('facts recorded before resolutions had fields', () => {
  it('reads an old " — fixed:" error as fixed and drops the old "Unresolved:" duplicates', async () => {
    const session = await newSession();
    say(session, 'Fix the build.', { turn: 1 });
    toolStep(session, run('x', 'ls'), 'src', { exitCode: 0, turn: 1, step: 1 });
    const summary = session.append('compaction/summary', {
      compactionId: 1,
      region: { start: 2, end: 4 },
      summary: null,
      summarizerError: 'old',
      facts: [
        {
          kind: 'error',
          text: 'run_command npm test: Error: boom — fixed: run_command npm test succeeded (#9)',
          seqs: [7, 9],
        },
        { kind: 'error', text: 'run_command npm run lint: error TS2304: x', seqs: [11] },
        {
          kind: 'open-item',
          text: 'Unresolved: run_command npm run lint: error TS2304: x',
          seqs: [11],
        },
      ],
      usage: null,
      projectedTokens: 10,
    }).seq;
    const surface = session.surface();
    session.append(
      'user/message',
      {
        content: '<compacted-summary id="1" covers="2-4">old</compacted-summary>',
        source: 'compact-checkpoint',
      },
      {
        surfaceOp: {
          op: 'replace',
          start: surface[0] as number,
          end: surface[surface.length - 1] as number,
        },
        sourceEventSeqs: [summary - 1, summary, ...surface],
      },
    );
    reply(session, 'Looking again.', { turn: 2, step: 1 });
    const { facts, text } = whole(session);
    expect(facts.filter((fact) => fact.kind === 'error')).toEqual([
      {
        kind: 'error',
        text: 'run_command npm test: Error: boom',
        seqs: [7, 9],
        resolvedAt: 9,
        resolution: 'run_command npm test succeeded (#9)',
      },
      { kind: 'error', text: 'run_command npm run lint: error TS2304: x', seqs: [11] },
    ]);
    expect(text).not.toContain('Unresolved:');
  });
});
