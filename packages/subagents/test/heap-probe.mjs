// Child process of tree-heap.test.ts: runs one tree reader in this process and reports how far
// the heap grew while it ran (sampled every 2 ms and after each event the store yields).
// Usage: node --expose-gc heap-probe.mjs <reader> <session-dir> <id> <warm-id> <report.json>
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

const pkg = dirname(dirname(fileURLToPath(import.meta.url)));
register({ tsconfig: join(pkg, '..', '..', 'tsconfig.json') });
const [reader, dir, id, warmId, reportPath] = process.argv.slice(2);
const { readChildTree, readSessionTree, recoverChildren, replayTree } = await import(
  pathToFileURL(join(pkg, 'src', 'index.ts')).href
);
const { createJsonlStore } = await import('@spine/session-log');

let peak = 0;
const sample = () => {
  peak = Math.max(peak, process.memoryUsage().heapUsed);
};
const base = createJsonlStore({ dir, fsync: 'never' });
// The same store, sampling the heap at every event it yields (a reader's loop holds no timer turn).
const store = Object.create(base, {
  readRange: {
    value: async function* (sessionId, range) {
      for await (const event of base.readRange(sessionId, range)) {
        sample();
        yield event;
      }
    },
  },
});
const readers = {
  'child-tree': (session) => readChildTree(store, session),
  'replay-tree': (session) => replayTree(store, session),
  recover: (session) => recoverChildren(store, session),
  // The control: the tree with every event held, as readSessionTree (and these readers before
  // they streamed) read it.
  'whole-load': (session) => readSessionTree(store, session),
};
const run = readers[reader];
if (!run) throw new Error(`unknown reader ${reader}`);
await run(warmId); // loads what the reader imports lazily, on a small tree
globalThis.gc();
const before = process.memoryUsage().heapUsed;
peak = before;
const timer = setInterval(sample, 2);
const result = await run(id);
clearInterval(timer);
sample();
const summary =
  reader === 'replay-tree'
    ? {
        reportsOk: result.sessions.every((entry) => entry.report.ok),
        requests: result.sessions.reduce((sum, entry) => sum + entry.report.requests.length, 0),
        sessions: result.sessions.length,
        problems: result.sessions.flatMap((entry) => entry.problems),
      }
    : reader === 'recover'
      ? { recovered: result.length }
      : { children: result.children.length };
writeFileSync(reportPath, JSON.stringify({ before, peak, summary }));
