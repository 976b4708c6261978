// A fast-check generator of ordinary multi-turn coding sessions with planted facts: user
// constraints (with and without trigger words), error lines inside long noisy command output,
// fixes on either side of a later compaction boundary, open items in model text followed by more
// talk (some later reported done), and files written. Planted strings carry generated numbers so
// that finding one verbatim in a request means it was kept, not guessed.
import fc from 'fast-check';

/** One model reply of the script: optional text, optional tool call. */
export interface ScriptStep {
  text?: string;
  call?: { id: string; name: 'run_command' | 'write'; args: Record<string, string> };
  /** For run_command: what the command prints and its exit code. */
  output?: { content: string; exitCode: number };
}

/** One user turn: the user's message, the model's tool steps, its closing reply. */
export interface ScriptTurn {
  user: string;
  steps: ScriptStep[];
  closing: string;
}

/** A planted fact and where it was planted. */
export interface PlantedFact {
  category: 'constraint' | 'error' | 'fix' | 'open-item' | 'file';
  /** The text that must appear verbatim in the last request. */
  text: string;
  /** The tool call id that carries it (errors, fixes, files). */
  callId?: string;
  /** For fixes: the id of the successful re-run. */
  fixCallId?: string;
  /** For open items: the statement that reports it done, when the session has one. */
  doneText?: string;
  /** Constraints: whether the sentence has one of the old trigger words. */
  triggerWord?: boolean;
}

/** A generated session. */
export interface GeneratedSession {
  turns: ScriptTurn[];
  facts: PlantedFact[];
}

const TRIGGERED = [
  (n: number) => `Never run the seed script against the staging-${n} database.`,
  (n: number) => `Do not edit anything under vendor/lib-${n}/.`,
  (n: number) => `Always run the linter before you commit to release-${n}.`,
  (n: number) => `Make sure MAX_POOL_${n} stays at 20.`,
];
const UNTRIGGERED = [
  (n: number) => `The test env needs LEDGER_URL_${n} set; skip the DB tests if it is empty.`,
  (n: number) => `Leave src/generated/client-${n}.ts alone.`,
  (n: number) => `Node ${n} has to keep working.`,
  (n: number) => `Tabs, not spaces, in packages/ui-${n}.`,
  (n: number) => `I'd rather keep the v${n} export API for one more release.`,
  (n: number) => `Use pnpm instead of npm in tools-${n}.`,
  (n: number) => `Before you push, rebase on feature-${n}.`,
  (n: number) => `Changes to the orders-${n} table go through a migration.`,
  (n: number) => `Run the slow suite ${n} only at the end.`,
  (n: number) => `CI runs with SHARD_COUNT=${n}.`,
  (n: number) => `No new dependencies in the billing-${n} package.`,
  (n: number) => `Stay on Node ${n}.`,
  (n: number) => `Everything in api-${n} goes through the HTTP client.`,
  (n: number) => `The DB tests need a running Postgres ${n}; without it, mark them skipped.`,
  (n: number) => `Port ${n} is reserved for the mock server.`,
  (n: number) => `The public API of store-${n} is frozen.`,
  (n: number) => `Squash before merging to main-${n}.`,
  (n: number) => `Merge pr-${n} only after review.`,
];
const REQUESTS = [
  'Make the import tests pass.',
  'Add retries to the sync client.',
  'Continue with the refactor.',
  'Look at the failing build.',
  'Clean up the parser module.',
  'ok, go on',
];

interface ErrorKind {
  command: (n: number) => string;
  line: (n: number) => string;
  around: (line: string, n: number) => string[];
}
const ERRORS: ErrorKind[] = [
  {
    command: (n) => `pytest tests/test_rows_${n}.py`,
    line: (n) => `AssertionError: expected ${n} rows, got ${n + 1}`,
    around: (line, n) => [
      `collected ${n % 9} items`,
      `E       ${line}`,
      `FAILED tests/test_rows_${n}.py::test_count - ${line}`,
    ],
  },
  {
    command: (n) => `npx tsc -p packages/core-${n} --noEmit`,
    line: (n) =>
      `src/ledger-${n}.ts(${n},7): error TS2322: Type 'string' is not assignable to type 'number'.`,
    around: (line) => [line, '', 'Found 1 error.'],
  },
  {
    command: (n) => `go test ./parse${n}/...`,
    line: (n) => `parse_test.go:${n}: ParseRange("1-${n}") = [1], want [1 ${n}]`,
    around: (line, n) => [
      `=== RUN   TestParse${n}`,
      `    ${line}`,
      `--- FAIL: TestParse${n} (0.00s)`,
      `FAIL\texample.com/acme/parse${n}\t0.004s`,
    ],
  },
  {
    command: (n) => `cargo test entry_${n}`,
    line: (n) => `thread 'entry::tests::case_${n}' panicked at src/entry.rs:${n}:9:`,
    around: (line) => [
      line,
      'assertion `left == right` failed',
      'test result: FAILED. 2 passed; 1 failed',
    ],
  },
  {
    command: (n) => `node scripts/serve-${n}.js`,
    line: (n) => `TypeError: Cannot read properties of undefined (reading 'port${n}')`,
    around: (line, n) => [
      `file:///srv/app/scripts/serve-${n}.js:88`,
      '          ^',
      '',
      line,
      `    at startServer (file:///srv/app/scripts/serve-${n}.js:88:11)`,
      'Node.js v20.18.1',
    ],
  },
  {
    command: (n) => `make build-${n}`,
    line: (n) => `src/parser_${n}.c:91:5: error: 'header_t' has no member named 'size${n}'`,
    around: (line, n) => [line, `make: *** [Makefile:${n}: build-${n}] Error 1`],
  },
  {
    command: (n) => `python etl/run_${n}.py`,
    line: (n) => `ValueError: invalid literal for int() with base 10: 'batch${n}'`,
    around: (line, n) => [
      'Traceback (most recent call last):',
      `  File "/home/dev/etl/run_${n}.py", line ${n}, in <module>`,
      '    main()',
      '            ^^^^^^^^^^^^^^^^^^^^^',
      line,
    ],
  },
  {
    command: (n) => `cargo build -p ledger${n}`,
    line: (n) => `error[E0425]: cannot find value \`total${n}\` in this scope`,
    around: (line, n) => [
      `   Compiling ledger${n} v0.3.0`,
      line,
      `  --> src/lib.rs:${n}:5`,
      `error: could not compile \`ledger${n}\` (lib) due to 1 previous error`,
    ],
  },
  {
    command: (n) => `git push origin topic-${n}`,
    line: (n) =>
      `fatal: unable to access 'https://git.example.com/acme/repo${n}.git/': Could not resolve host`,
    around: (line) => [line],
  },
  {
    command: (n) => `npx vitest run src/sum${n}.test.ts`,
    line: (n) => `AssertionError: expected ${n} to be ${n + 2} // Object.is equality`,
    around: (line, n) => [
      `\u001b[31m FAIL \u001b[39m src/sum${n}.test.ts > sums rows`,
      `\u001b[31m${line}\u001b[39m`,
      ' Test Files  1 failed (1)',
    ],
  },
  {
    command: (n) => `npm run lint -w pkg-${n}`,
    line: (n) => `${n}:3  error  'unused${n}' is assigned a value but never used  no-unused-vars`,
    around: (line) => [
      '/home/dev/acme/src/index.ts',
      `  ${line}`,
      '',
      '✖ 1 problem (1 error, 0 warnings)',
    ],
  },
];
// Progress lines real tools print; several contain "error", "fail" or "exception" as words.
const NOISE = [
  (n: number) => `checking module ${n} for updates`,
  (n: number) => `Traceback filtering enabled for worker ${n}`,
  (n: number) => `collected ${n} items from the cache`,
  (n: number) => `   Compiling serde v1.0.${n}`,
  (n: number) => ` ✓ src/errors/case-${n}.test.ts (3 tests) ${n}ms`,
  (n: number) => `ok  \texample.com/acme/util${n}\t0.00${n % 10}s`,
  (n: number) => `warning: unused variable: \`count${n}\``,
  (n: number) => `Retrying after a transient failure in ${n}ms`,
  (n: number) => `src/errors/handler-${n}.ts compiled; exceptions handled: 0`,
  (n: number) => `added ${n} packages, and audited ${n + 1} packages in 3s`,
  (n: number) => `ErrorBoundary${n} mounted without errors`,
  (n: number) => `Found 0 errors in ${n} files.`,
  (n: number) => `  at processTicksAndRejections (node:internal/process/task_queues:${n}:5)`,
];
// Open-item statements and, for each, how the model later reports it done.
const OPEN_ITEMS: [(n: number) => string, (n: number) => string][] = [
  [
    (n) => `Next step: wire the retry into sync${n}()`,
    (n) => `Done: the retry is wired into sync${n}() now.`,
  ],
  [
    (n) => `TODO: handle empty rows in load_rows_${n}()`,
    (n) => `Empty rows in load_rows_${n}() are handled now.`,
  ],
  [
    (n) => `- [ ] update docs/setup-${n}.md with the new flag`,
    (n) => `I updated docs/setup-${n}.md; the flag is documented, so that is done.`,
  ],
  [
    (n) => `I still need to migrate the cache${n} table.`,
    (n) => `The cache${n} table migration is finished.`,
  ],
  [
    (n) => `After that I'll add a regression test for issue ${n}.`,
    (n) => `The regression test for issue ${n} is added.`,
  ],
  [
    (n) => `Remaining: the Windows path handling in paths${n}.ts.`,
    (n) => `Windows path handling in paths${n}.ts is fixed.`,
  ],
  [
    (n) => `The next step is to add pagination to list${n}().`,
    (n) => `Pagination in list${n}() is implemented.`,
  ],
  [
    (n) => `Still open: the flaky test in retry_${n}.spec.ts.`,
    (n) => `The flaky test in retry_${n}.spec.ts is fixed.`,
  ],
  [
    (n) => `Once CI is green, I will tag release-${n}.`,
    (n) => `Tagged release-${n}; that is done.`,
  ],
  [
    (n) => `Tests pass now; next step: run the e2e suite for app${n}.`,
    (n) => `The e2e suite for app${n} passes now, so that step is done.`,
  ],
  [(n) => `We should also bump schema${n} later.`, (n) => `Bumped schema${n}; done.`],
];
const TALK = [
  'Let me look at the output first.',
  'That narrows it down.',
  'The rest of the module looks fine.',
  'I will keep the change small.',
  'Running the suite again to see where we are.',
];

function noise(count: number, seed: number): string[] {
  return Array.from({ length: count }, (_, index) => {
    const make = NOISE[(seed + index * 7) % NOISE.length] as (n: number) => string;
    return make(seed + index);
  });
}

interface Plan {
  turns: number;
  constraints: { turn: number; kind: number; triggered: boolean; first: boolean }[];
  errors: { turn: number; kind: number; before: number; after: number; fixAfter: number | null }[];
  items: { turn: number; kind: number; inClosing: boolean; doneAfter: number | null }[];
  files: { turn: number }[];
  chatter: number[];
}

const planArbitrary = fc.integer({ min: 3, max: 10 }).chain((turns) => {
  const turn = fc.integer({ min: 0, max: turns - 1 });
  return fc.record({
    turns: fc.constant(turns),
    constraints: fc.array(
      fc.record({ turn, kind: fc.nat(99), triggered: fc.boolean(), first: fc.boolean() }),
      { minLength: 1, maxLength: 3 },
    ),
    errors: fc.array(
      fc.record({
        turn,
        kind: fc.nat(99),
        before: fc.integer({ min: 10, max: 80 }),
        after: fc.integer({ min: 0, max: 40 }),
        fixAfter: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null, freq: 2 }),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    items: fc.array(
      fc.record({
        turn,
        kind: fc.nat(99),
        inClosing: fc.boolean(),
        doneAfter: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    files: fc.array(fc.record({ turn }), { maxLength: 3 }),
    chatter: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: turns, maxLength: turns }),
  });
});

/** Sessions of 3–10 turns with 4–13 planted facts. */
export const sessionArbitrary: fc.Arbitrary<GeneratedSession> = fc
  .tuple(planArbitrary, fc.integer({ min: 10, max: 9000 }))
  .map(([plan, seed]) => buildSession(plan, seed));

function buildSession(plan: Plan, seed: number): GeneratedSession {
  let counter = 0;
  const unique = (): number => seed + 97 * ++counter;
  const turns: ScriptTurn[] = Array.from({ length: plan.turns }, (_, index) => ({
    user: REQUESTS[(seed + index) % REQUESTS.length] as string,
    steps: [],
    closing: TALK[(seed + index) % TALK.length] as string,
  }));
  const at = (index: number): ScriptTurn => turns[Math.min(index, turns.length - 1)] as ScriptTurn;
  const facts: PlantedFact[] = [];
  for (const constraint of plan.constraints) {
    const pool = constraint.triggered ? TRIGGERED : UNTRIGGERED;
    const text = (pool[constraint.kind % pool.length] as (n: number) => string)(unique());
    const target = at(constraint.turn);
    target.user = constraint.first ? `${text}\n${target.user}` : `${target.user} ${text}`;
    facts.push({ category: 'constraint', text, triggerWord: constraint.triggered });
  }
  for (const error of plan.errors) {
    const kind = ERRORS[error.kind % ERRORS.length] as ErrorKind;
    const n = unique();
    const command = kind.command(n);
    const line = kind.line(n);
    const content = [
      ...noise(error.before, n),
      ...kind.around(line, n),
      ...noise(error.after, n + 1),
    ].join('\n');
    const callId = `fail_${n}`;
    at(error.turn).steps.push({
      text: TALK[n % TALK.length] as string,
      call: { id: callId, name: 'run_command', args: { command } },
      output: { content, exitCode: 1 + (n % 2) },
    });
    const fact: PlantedFact = {
      category: error.fixAfter === null ? 'error' : 'fix',
      text: line,
      callId,
    };
    if (error.fixAfter !== null) {
      const fixTurn = at(error.turn + error.fixAfter);
      fixTurn.steps.push({
        call: {
          id: `edit_${n}`,
          name: 'write',
          args: { path: `src/fix-${n}.ts`, content: `export const fixed${n} = true;\n` },
        },
      });
      fact.fixCallId = `pass_${n}`;
      fixTurn.steps.push({
        call: { id: fact.fixCallId, name: 'run_command', args: { command } },
        output: { content: [...noise(8, n + 2), 'all checks passed'].join('\n'), exitCode: 0 },
      });
    }
    facts.push(fact);
  }
  for (const item of plan.items) {
    const n = unique();
    const [statement, done] = OPEN_ITEMS[item.kind % OPEN_ITEMS.length] as [
      (n: number) => string,
      (n: number) => string,
    ];
    const text = statement(n);
    const talk = `${TALK[n % TALK.length]}\n${text}\n${TALK[(n + 1) % TALK.length]} ${TALK[(n + 2) % TALK.length]}`;
    const target = at(item.turn);
    if (item.inClosing) target.closing = `${target.closing}\n${talk}`;
    else target.steps.push({ text: talk, call: chatterCall(n) });
    const fact: PlantedFact = { category: 'open-item', text };
    if (item.doneAfter !== null && item.turn + item.doneAfter < turns.length) {
      fact.doneText = done(n);
      const later = at(item.turn + item.doneAfter);
      later.closing = `${fact.doneText} ${later.closing}`;
    }
    facts.push(fact);
  }
  for (const file of plan.files) {
    const n = unique();
    const path = `src/features/feature-${n}.ts`;
    at(file.turn).steps.push({
      call: {
        id: `write_${n}`,
        name: 'write',
        args: { path, content: `export const feature${n} = ${n};\n` },
      },
    });
    facts.push({ category: 'file', text: path, callId: `write_${n}` });
  }
  plan.chatter.forEach((count, index) => {
    for (let step = 0; step < count; step++) at(index).steps.push({ call: chatterCall(unique()) });
  });
  // Chatter and planted steps interleave by a seeded shuffle, fixes staying after their error.
  for (const turn of turns) turn.steps = interleave(turn.steps, seed);
  // A last short turn, so that the closing reply of the last planted turn is in a request too.
  turns.push({ user: 'Thanks, that is all for now.', steps: [], closing: 'Glad to help.' });
  return { turns, facts };
}

function chatterCall(n: number): NonNullable<ScriptStep['call']> & { id: string } {
  return { id: `ls_${n}`, name: 'run_command', args: { command: `ls -la src/module-${n}` } };
}

/** Rotates independent steps while keeping each edit/re-run pair and its order intact. */
function interleave(steps: ScriptStep[], seed: number): ScriptStep[] {
  if (steps.length < 3) return steps;
  const shift = seed % steps.length;
  const rotated = [...steps.slice(shift), ...steps.slice(0, shift)];
  const failed = (id: string) => id.replace(/^(edit|pass)_/, 'fail_');
  // Put every fix step after its failing command when both are in this turn.
  const position = new Map(rotated.map((step, index) => [step.call?.id, index]));
  return rotated.sort((a, b) => rank(a) - rank(b));
  function rank(step: ScriptStep): number {
    const id = step.call?.id ?? '';
    const index = position.get(id) ?? 0;
    if (!/^(edit|pass)_/.test(id)) return index;
    const origin = position.get(failed(id));
    const base = origin === undefined ? index : Math.max(index, origin + 0.5);
    return base + (id.startsWith('pass_') ? 0.25 : 0.1);
  }
}

/** Output of the non-planted `ls` commands. */
export function chatterOutput(command: string): string {
  const n = Number(/(\d+)$/.exec(command)?.[1] ?? 0);
  return noise(40 + (n % 60), n).join('\n');
}
