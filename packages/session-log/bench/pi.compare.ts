// Spine against pi (badlogic/pi-mono, the coding agent's SessionManager) on one realistic
// session: open time and heap held after opening. Not part of `npm run bench` (the runner takes
// only *.bench.ts files): it needs pi's source checked out, which is never committed here.
//
//   git clone https://github.com/badlogic/pi-mono /tmp/pi   (or PI_DIR=<checkout>)
//   node --import tsx --expose-gc packages/session-log/bench/pi.compare.ts
//
// pi's session-manager.ts imports only Node built-ins at run time (its other imports are types),
// so nothing of pi needs installing or building. The session is written once through Spine
// (buildSession: 100k events of code, tool output, JSON and Unicode, compacted to a ~2,000-entry
// surface) and converted entry by entry to pi's version-3 JSONL: every user, assistant and tool
// result message with the same content, each compaction as a pi `compaction` entry (summary,
// first kept entry), Spine's bookkeeping events (turn/start, tool/started, turn/end) dropped as
// pi has none. Measured, each the median of 5 interleaved rounds (wall and CPU):
// - pi: SessionManager.open(path) + buildSessionContext() (the messages sent to the model);
// - Spine full: Session.open (every event held) + deriveMessages();
// - Spine lazy: Session.open({ history: 'lazy' }) from its snapshot + deriveMessages();
// - Spine first open: lazy without a snapshot (streams the log; writes the snapshot);
// and the heap each holds after opening (gc before and after, the opened object kept alive).
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { AssistantMessageBody, SessionEvent, ToolResultBody } from '@spine/protocol';
import { createJsonlStore, Session } from '../src/index.js';
import { buildSession } from './build-session.js';

const piDir = process.env.PI_DIR ?? '/tmp/pi';
const piModule = join(piDir, 'packages/coding-agent/src/core/session-manager.ts');
if (!existsSync(piModule)) {
  console.error(
    `pi's source is not at ${piModule}: clone https://github.com/badlogic/pi-mono to /tmp/pi (or set PI_DIR) and run again`,
  );
  process.exit(2);
}
interface PiSessionManager {
  buildSessionContext(): { messages: unknown[] };
}
const pi = (await import(pathToFileURL(piModule).href)) as {
  SessionManager: { open(path: string, sessionDir?: string): PiSessionManager };
};

setFlagsFromString('--expose-gc');
const gc = (globalThis.gc ?? runInNewContext('gc')) as () => void;
const dir = mkdtempSync(join(tmpdir(), 'spine-bench-pi-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const store = createJsonlStore({ dir, fsync: 'never' });
const EVENTS = Number(process.env.SPINE_PI_EVENTS ?? 100_000);

await buildSession(store, 's', EVENTS);
const spinePath = join(dir, 's.jsonl');

/** pi's entries for the same session (see the header comment). */
async function toPi(): Promise<string> {
  const lines: string[] = [];
  const surface: number[] = [];
  let parentId: string | null = null;
  let header: SessionEvent | undefined;
  const entry = (event: SessionEvent, fields: Record<string, unknown>): void => {
    const id = `e${event.seq}`;
    lines.push(JSON.stringify({ ...fields, id, parentId, timestamp: event.at }));
    parentId = id;
  };
  const at = (event: SessionEvent): number => Date.parse(event.at);
  for await (const event of store.readRange('s', { fromSeq: 1 })) {
    if (event.seq === 1) header = event;
    const op = event.surfaceOp;
    if (op?.op === 'replace') {
      const first = surface.indexOf(op.start);
      const last = surface.indexOf(op.end);
      surface.splice(first, last - first + 1, event.seq);
      const kept = surface[first + 1] ?? event.seq;
      const summary = (event.body as { content: string }).content;
      entry(event, { type: 'compaction', summary, firstKeptEntryId: `e${kept}`, tokensBefore: 0 });
      continue;
    }
    if (op?.op === 'append') surface.push(event.seq);
    if (event.type === 'user/message') {
      const content = (event.body as { content: string }).content;
      entry(event, { type: 'message', message: { role: 'user', content, timestamp: at(event) } });
    } else if (event.type === 'assistant/message') {
      const body = event.body as AssistantMessageBody;
      const content = body.content.map((part) =>
        part.type === 'tool-call'
          ? {
              type: 'toolCall',
              id: part.id,
              name: part.name,
              arguments: JSON.parse(part.arguments),
            }
          : part,
      );
      const message = {
        role: 'assistant',
        content,
        api: 'anthropic-messages',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        usage: { input: 1200, output: 300, cacheRead: 0, cacheWrite: 0, totalTokens: 1500 },
        stopReason: body.finishReason === 'tool-calls' ? 'toolUse' : 'stop',
        timestamp: at(event),
      };
      entry(event, { type: 'message', message });
    } else if (event.type === 'tool/result') {
      const body = event.body as ToolResultBody;
      const message = {
        role: 'toolResult',
        toolCallId: body.toolCallId,
        toolName: body.toolName,
        content: [{ type: 'text', text: body.content }],
        isError: body.isError,
        timestamp: at(event),
      };
      entry(event, { type: 'message', message });
    }
  }
  const piHeader = { type: 'session', version: 3, id: 'pi', timestamp: header?.at, cwd: dir };
  return `${[JSON.stringify(piHeader), ...lines].join('\n')}\n`;
}
const piPath = join(dir, 'pi.jsonl');
writeFileSync(piPath, await toPi());
const spineMB = statSync(spinePath).size / 1e6;
const piMB = statSync(piPath).size / 1e6;
console.log(`Spine log ${spineMB.toFixed(1)} MB, pi log ${piMB.toFixed(1)} MB`);

/** What an open hands back: the message count, and something holding the opened state. */
type Holder = { messages: number; held: unknown; close(): Promise<void> };
const cases: Record<string, () => Promise<Holder>> = {
  pi: async () => {
    const manager = pi.SessionManager.open(piPath, dir);
    const messages = manager.buildSessionContext().messages.length;
    return { messages, held: manager, close: async () => {} };
  },
  spineFull: async () => {
    const session = await Session.open({ store, id: 's', snapshots: false });
    return {
      messages: session.deriveMessages().messages.length,
      held: session,
      close: () => session.close(),
    };
  },
  spineLazy: async () => {
    const session = await Session.open({ store, id: 's', history: 'lazy', snapshots: false });
    return {
      messages: session.deriveMessages().messages.length,
      held: session,
      close: () => session.close(),
    };
  },
  spineFirstOpen: async () => {
    rmSync(`${spinePath}.snapshot`, { force: true });
    const session = await Session.open({ store, id: 's', history: 'lazy', snapshots: false });
    return {
      messages: session.deriveMessages().messages.length,
      held: session,
      close: () => session.close(),
    };
  },
};

const wall: Record<string, number[]> = {};
const cpu: Record<string, number[]> = {};
for (const name of Object.keys(cases)) {
  wall[name] = [];
  cpu[name] = [];
}
const messages: Record<string, number> = {};
for (let round = 0; round < 5; round++) {
  for (const [name, open] of Object.entries(cases)) {
    gc();
    const start = performance.now();
    const before = process.cpuUsage();
    const held = await open();
    const used = process.cpuUsage(before);
    wall[name]?.push(performance.now() - start);
    cpu[name]?.push((used.user + used.system) / 1000);
    messages[name] = held.messages;
    await held.close();
  }
  console.log(
    `round ${round + 1}/5: ${Object.keys(cases)
      .map((name) => `${name} ${wall[name]?.at(-1)?.toFixed(0)} ms`)
      .join(', ')}`,
  );
}

/** Heap held while the opened session (or pi's manager) is alive. */
async function heapMB(name: string): Promise<number> {
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const held = await (cases[name] as () => Promise<Holder>)();
  gc();
  const after = process.memoryUsage().heapUsed;
  if (held.held === undefined) throw new Error(`${name} held nothing`);
  await held.close();
  return +((after - before) / 1e6).toFixed(1);
}
const heap: Record<string, number> = {};
for (const name of Object.keys(cases)) heap[name] = await heapMB(name);

const median = (values: number[] = []): number =>
  +([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number).toFixed(1);
const figures: Record<string, unknown> = {};
for (const name of Object.keys(cases)) {
  figures[name] = {
    openMs: median(wall[name]),
    openCpuMs: median(cpu[name]),
    heapMB: heap[name],
    messages: messages[name],
  };
}
console.log(
  JSON.stringify({
    bench: 'session-log/pi-compare',
    events: EVENTS,
    spineMB: +spineMB.toFixed(1),
    piMB: +piMB.toFixed(1),
    piCommit: process.env.PI_COMMIT,
    ...figures,
    load: +(loadavg()[0] as number).toFixed(1),
    pass: true,
  }),
);
