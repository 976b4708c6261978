// Child process of history-heap.test.ts: runs one CLI command in this process (the command
// function itself, its output to this process's stdout) and reports how far the heap grew
// while it ran. Usage: node --expose-gc heap-probe.mjs <command> <session-dir> <id> <warm-id> <report.json>
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

const app = dirname(dirname(fileURLToPath(import.meta.url)));
register({ tsconfig: join(app, '..', '..', 'tsconfig.json') });
const [command, sessionDir, id, warmId, reportPath] = process.argv.slice(2);
const load = (path) => import(pathToFileURL(join(app, 'src', path)).href);
const { showCommand } = await load('commands/show.ts');
const { exportCommand } = await load('commands/export.ts');
const { readSessionEvents, storeFor } = await import(
  pathToFileURL(join(app, '..', '..', 'packages', 'harness', 'src', 'store.ts')).href
);
const { renderTranscript } = await import(
  pathToFileURL(join(app, '..', '..', 'packages', 'tui', 'src', 'transcript.ts')).href
);

const flags = { sessionDir };
const commands = {
  show: (session) => showCommand(session, flags),
  'show-events': (session) => showCommand(session, { ...flags, events: true }),
  'show-json': (session) => showCommand(session, { ...flags, json: true }),
  'export-md': (session) => exportCommand(session, { ...flags, format: 'md' }),
  'export-json': (session) => exportCommand(session, { ...flags, format: 'json' }),
  // The whole-load transcript spine show wrote before it streamed: the control that shows the
  // measurement sees a session held in memory.
  'whole-load': async (session) => {
    const store = storeFor({ sessionDir, fsync: 'never' });
    const events = await readSessionEvents(store, session, sessionDir);
    process.stdout.write(renderTranscript(events));
    return 0;
  },
};
const run = commands[command];
if (!run) throw new Error(`unknown command ${command}`);

let peak = 0;
const sample = () => {
  peak = Math.max(peak, process.memoryUsage().heapUsed);
};
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (...args) => {
  sample();
  return write(...args);
};
await run(warmId); // loads what the command imports lazily, on a small session
globalThis.gc();
const before = process.memoryUsage().heapUsed;
peak = before;
const timer = setInterval(sample, 2);
const code = await run(id);
clearInterval(timer);
sample();
writeFileSync(reportPath, JSON.stringify({ code, before, peak }));
