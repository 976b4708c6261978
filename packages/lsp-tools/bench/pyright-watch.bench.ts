// Benchmark: how fast changes made by shell commands reach pyright through the manager's file
// watching (workspace/didChangeWatchedFiles), on a generated 60-module project. Target from
// issue 22: a shell rename is reflected in a dependent file's diagnostics within 2 s, and a
// shell-created file appears in references within 2 s. Baseline, measured in the same run: a
// change made through the document sync path (an open file edited on disk, then queried).
// Each figure is the median of ROUNDS rounds.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLspManager, createPyrightServer } from '../src/index.js';
import { pythonReferences, writePythonProject } from '../test/support/python-project.js';

const ROUNDS = 5;
const TARGET_MS = 2000;
const root = mkdtempSync(join(tmpdir(), 'spine-lsp-pybench-'));
writePythonProject(root, 60);
const pyright = fileURLToPath(
  new URL('../../../node_modules/.bin/pyright-langserver', import.meta.url),
);
const lsp = createLspManager({ cwd: root, servers: [createPyrightServer({ command: pyright })] });
const shell = (command: string): void => {
  execFileSync('sh', ['-c', command], { cwd: root });
};
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)]!);
};
async function until(probe: () => Promise<boolean>, limitMs = 20_000): Promise<number> {
  const started = performance.now();
  while (!(await probe())) {
    if (performance.now() - started > limitMs) return Number.POSITIVE_INFINITY;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return performance.now() - started;
}

const declared = pythonReferences(root, ['func_00']).func_00!.find((where) =>
  where.startsWith('app/mod_00.py'),
)!;
const [, line, column] = declared.split(':').map(Number);
const position = { line: line!, column: column! };
await lsp.references('app/mod_00.py', position);

const created: number[] = [];
const renamed: number[] = [];
const edited: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  const file = `app/created_${round}.py`;
  shell(
    `printf 'from app.mod_00 import func_00\\n\\n\\ndef fresh() -> int:\\n    return func_00(1)\\n' > ${file}`,
  );
  created.push(
    await until(async () =>
      (await lsp.references('app/mod_00.py', position)).some((each) => each.path.endsWith(file)),
    ),
  );
  const module = `mod_${String(30 + round).padStart(2, '0')}`;
  const dependent = `app/mod_${String(31 + round).padStart(2, '0')}.py`;
  await lsp.diagnostics(dependent);
  shell(`mv app/${module}.py app/${module}_moved.py`);
  renamed.push(
    await until(async () =>
      (await lsp.diagnostics(dependent)).some((each) =>
        each.message.includes(`"app.${module}" could not be resolved`),
      ),
    ),
  );
  shell(`mv app/${module}_moved.py app/${module}.py`);
  await until(async () => (await lsp.diagnostics(dependent)).length === 0);
  // Baseline: an open file edited on disk, seen through the document sync before the query.
  const path = join(root, dependent);
  const original = readFileSync(path, 'utf8');
  const started = performance.now();
  writeFileSync(path, `${original}\nbroken: int = "text"\n`);
  await until(async () => (await lsp.diagnostics(dependent)).length > 0);
  edited.push(performance.now() - started);
  writeFileSync(path, original);
  await until(async () => (await lsp.diagnostics(dependent)).length === 0);
  console.log(
    `round ${round + 1}: created ${Math.round(created.at(-1)!)} ms, renamed ${Math.round(renamed.at(-1)!)} ms, edited ${Math.round(edited.at(-1)!)} ms`,
  );
}
await lsp.shutdown();
rmSync(root, { recursive: true, force: true });

const pass = median(created) <= TARGET_MS && median(renamed) <= TARGET_MS;
console.log(
  JSON.stringify({
    bench: 'lsp-tools/pyright-watch',
    shellCreatedInReferencesMedianMs: median(created),
    shellRenameInDiagnosticsMedianMs: median(renamed),
    baselineEditedOpenFileMedianMs: median(edited),
    renameRatio: Number((median(renamed) / Math.max(median(edited), 1)).toFixed(2)),
    targetMs: TARGET_MS,
    rounds: ROUNDS,
    pass,
  }),
);
