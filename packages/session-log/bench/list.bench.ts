// Listing sessions reads only each file's header line plus stat (issue 2: "listing never reads
// whole files"). Baseline in the same run: reading every file whole and parsing its first line.
// No figure is set by the issue; pass means list() beats the whole-file baseline.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJsonlStore, Session } from '../src/index.js';

const SESSIONS = 200;
const EVENTS_PER_SESSION = 100;
const dir = mkdtempSync(join(tmpdir(), 'spine-bench-list-'));
// Removed however the run ends, even on a failure part-way.
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const store = createJsonlStore({ dir, fsync: 'never' });
const content = 'lorem ipsum dolor sit amet '.repeat(150);

console.log(`writing ${SESSIONS} sessions of ${EVENTS_PER_SESSION} events (~4 KB each)…`);
for (let i = 0; i < SESSIONS; i++) {
  const session = await Session.create({ store, id: `s-${i}`, title: `session ${i}` });
  for (let j = 0; j < EVENTS_PER_SESSION; j++) {
    session.append('user/message', { content, source: 'user' }, { surfaceOp: { op: 'append' } });
  }
  await session.close();
}

function wholeFiles(): number {
  const start = performance.now();
  let count = 0;
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.jsonl')) continue;
    const text = readFileSync(join(dir, name), 'utf8');
    JSON.parse(text.slice(0, text.indexOf('\n')));
    count++;
  }
  if (count !== SESSIONS) throw new Error(`read ${count} sessions`);
  return performance.now() - start;
}

async function listed(): Promise<number> {
  const start = performance.now();
  const summaries = await store.list();
  if (summaries.length !== SESSIONS) throw new Error(`listed ${summaries.length} sessions`);
  return performance.now() - start;
}

const baselineMs: number[] = [];
const listMs: number[] = [];
for (let round = 0; round < 5; round++) {
  baselineMs.push(wholeFiles());
  listMs.push(await listed());
  console.log(
    `round ${round + 1}/5: whole files ${baselineMs[round]!.toFixed(1)} ms, list() ${listMs[round]!.toFixed(1)} ms`,
  );
}
rmSync(dir, { recursive: true, force: true });
const ratio = Math.min(...listMs) / Math.min(...baselineMs);
console.log(
  JSON.stringify({
    bench: 'session-log/list',
    sessions: SESSIONS,
    eventsPerSession: EVENTS_PER_SESSION,
    wholeFilesMs: +Math.min(...baselineMs).toFixed(1),
    listMs: +Math.min(...listMs).toFixed(1),
    ratioToWholeFiles: +ratio.toFixed(2),
    target: 'ratioToWholeFiles < 1',
    pass: ratio < 1,
  }),
);
