import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { requestHeader } from '../test/request-header.js';
import { SessionCorruptError } from './errors.js';
import { sealText } from './internal/chain.js';
import { Session } from './session.js';
import { createJsonlStore } from './store-jsonl.js';
import { verifyJsonlLog, verifyJsonlLogInChunks } from './verify-jsonl.js';

const dir = mkdtempSync(join(tmpdir(), 'spine-fork-verify-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const store = createJsonlStore({ dir, fsync: 'never' });
const pathOf = (id: string): string => join(dir, `${id}.jsonl`);
const surface = { surfaceOp: { op: 'append' as const } };
let serial = 0;
const nextId = (prefix: string): string => `${prefix}-${++serial}`;

/** Appends `turns` turns to `session`, each with a request/header recording the chain head. */
let lastTurn = 0;
async function addTurns(session: Session, turns: number): Promise<void> {
  for (let count = 0; count < turns; count++) {
    const turn = ++lastTurn; // turns never go backwards, in a parent or in a fork

    session.append(
      'user/message',
      { content: `ask ${turn}`, source: 'user' },
      { turn, ...surface },
    );
    await session.flush();
    session.append('request/header', requestHeader(turn, session.chainHead()), { turn });
    session.append(
      'assistant/message',
      { content: [{ type: 'text', text: `done ${turn}` }], finishReason: 'stop' },
      { turn, ...surface },
    );
  }
}

async function recorded(turns: number): Promise<string> {
  const id = nextId('parent');
  const session = await Session.create({ store, id, snapshots: false });
  await addTurns(session, turns);
  await session.close();
  return id;
}

async function fork(id: string, atSeq: number, turns = 0): Promise<string> {
  const parent = await Session.open({ store, id, readOnly: true, snapshots: false });
  try {
    const child = await parent.fork(atSeq, { id: nextId('fork') });
    await addTurns(child, turns);
    await child.close();
    return child.id;
  } finally {
    await parent.close();
  }
}

/** Rewrites event `seq`'s text and re-seals every line from it on, as a forger would. */
function rewriteAndReseal(path: string, seq: number): void {
  const lines = readFileSync(path, 'utf8').slice(0, -1).split('\n');
  let previous = '';
  const out: string[] = [];
  for (const line of lines) {
    const value = JSON.parse(line) as { h: string; seq: number };
    if (value.seq < seq) {
      out.push(line);
      previous = value.h;
      continue;
    }
    let json = `${line.slice(0, line.lastIndexOf(',"h":"'))}}`;
    if (value.seq === seq) json = json.replace(/"ask \d+"/, '"delete everything"');
    const sealed = sealText(json, previous);
    out.push(sealed.line.slice(0, -1));
    previous = sealed.head;
  }
  writeFileSync(path, `${out.join('\n')}\n`);
}

describe('verifying forks', () => {
  it('verifies a fork taken at any seq of a recorded session, and a fork of that fork', async () => {
    const parent = await recorded(4); // 13 events, request headers at 4, 7, 10, 13
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 13 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 2 }),
        async (at, atAgain, turns) => {
          const child = await fork(parent, at, turns);
          const first = verifyJsonlLog(pathOf(child));
          expect(first.problem).toBeUndefined();
          const childLast = first.events;
          const grandchild = await fork(child, Math.min(atAgain, childLast), 1);
          expect(verifyJsonlLog(pathOf(grandchild)).problem).toBeUndefined();
        },
      ),
      { numRuns: 25 },
    );
  });

  it('records the parent chain values at seq 1 and the fork point in the header', async () => {
    const parent = await recorded(2);
    const child = await fork(parent, 5);
    const values = new Map([
      [1, ''],
      [5, ''],
    ]);
    verifyJsonlLogInChunks(pathOf(parent), 1 << 20, values);
    const header = JSON.parse(readFileSync(pathOf(child), 'utf8').split('\n')[0] as string);
    expect(header.body.parent).toEqual({
      sessionId: parent,
      atSeq: 5,
      chain: { start: values.get(1), end: values.get(5) },
    });
  });

  it('finds a copied event altered and the fork re-sealed', async () => {
    const parent = await recorded(3);
    const child = await fork(parent, 10);
    rewriteAndReseal(pathOf(child), 2);
    const result = verifyJsonlLog(pathOf(child));
    expect(result.ok).toBe(false);
    expect(result.problem?.kind).toBe('altered');
    expect(result.problem?.message).toMatch(/rewritten and re-sealed|copied event was altered/);
  });

  it('refuses to fork a parent whose chain is broken, and writes no fork', async () => {
    const parent = await recorded(3);
    rewriteAndReseal(pathOf(parent), 5);
    expect(verifyJsonlLog(pathOf(parent)).ok).toBe(false);
    const before = (await store.list()).length;
    const opened = await Session.open({ store, id: parent, readOnly: true, snapshots: false });
    await expect(opened.fork(9, { id: nextId('laundered') })).rejects.toThrow(SessionCorruptError);
    await opened.close();
    expect((await store.list()).length).toBe(before);
  });

  it('leaves the copied records of a fork without recorded values unchecked', async () => {
    // Forks written before the header recorded the parent's values: their copied request
    // headers recorded a chain the fork cannot recompute.
    const parent = await recorded(2);
    const child = await fork(parent, 7);
    const lines = readFileSync(pathOf(child), 'utf8').slice(0, -1).split('\n');
    const headerJson = (lines[0] as string).replace(/,"chain":\{"start":"\w+","end":"\w+"\}/, '');
    const out: string[] = [];
    let previous = '';
    for (const [index, line] of lines.entries()) {
      const json = index === 0 ? headerJson : line;
      const sealed = sealText(`${json.slice(0, json.lastIndexOf(',"h":"'))}}`, previous);
      out.push(sealed.line.slice(0, -1));
      previous = sealed.head;
    }
    writeFileSync(pathOf(child), `${out.join('\n')}\n`);
    expect(verifyJsonlLog(pathOf(child)).problem).toBeUndefined();
  });
});

describe('the bytes after the last newline', () => {
  async function copyOf(turns: number): Promise<string> {
    const id = await recorded(turns);
    return pathOf(id);
  }

  it('reports a torn last write as an unverified tail, not a problem', async () => {
    const path = await copyOf(1);
    const size = readFileSync(path).length;
    appendFileSync(path, '{"seq":5,"type":"assistant/mes');
    const result = verifyJsonlLog(path);
    expect(result.ok).toBe(true);
    expect(result.bytes).toBe(size);
    expect(result.tail).toMatchObject({ line: 5, bytes: 30 });
    expect(result.tail?.message).toMatch(/torn last write/);
  });

  it('fails bytes appended without a newline that are not the next event', async () => {
    const path = await copyOf(1);
    appendFileSync(path, 'GARBAGE');
    const result = verifyJsonlLog(path);
    expect(result.ok).toBe(false);
    expect(result.problem).toMatchObject({ kind: 'corrupt', seq: 5, line: 5 });
  });

  it('fails a last line altered and left without its newline', async () => {
    const path = await copyOf(1);
    const text = readFileSync(path, 'utf8').slice(0, -1);
    writeFileSync(path, text.replace(/"done \d+"/, '"done ever"'));
    const result = verifyJsonlLog(path);
    expect(result.ok).toBe(false);
    expect(result.problem).toMatchObject({ kind: 'altered', seq: 4, line: 4 });
  });

  it('reports an intact last line without its newline as torn', async () => {
    const path = await copyOf(1);
    writeFileSync(path, readFileSync(path, 'utf8').slice(0, -1));
    const result = verifyJsonlLog(path);
    expect(result).toMatchObject({ ok: true, events: 3 });
    expect(result.tail?.message).toMatch(/event 4 chains but lacks its newline/);
  });

  it('classifies any bytes appended without a newline: torn only when they start event N+1', async () => {
    const path = await copyOf(1);
    const original = readFileSync(path);
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), (bytes) => {
        const tail = Buffer.from(bytes.filter((byte) => byte !== 0x0a));
        if (tail.length === 0) return;
        writeFileSync(path, Buffer.concat([original, tail]));
        const result = verifyJsonlLog(path);
        const start = Buffer.from('{"seq":5,');
        const shared = Math.min(tail.length, start.length);
        const startsEvent =
          tail.subarray(0, shared).equals(start.subarray(0, shared)) ||
          tail.every((byte) => byte === 0);
        expect(result.ok).toBe(startsEvent);
        expect(result.bytes).toBe(original.length);
        if (startsEvent) expect(result.tail?.bytes).toBe(tail.length);
      }),
      { numRuns: 200 },
    );
  });

  it('fails an empty file: it is not a session', () => {
    const path = join(dir, 'empty.jsonl');
    writeFileSync(path, '');
    expect(verifyJsonlLog(path)).toMatchObject({
      ok: false,
      events: 0,
      problem: { kind: 'corrupt' },
    });
  });
});
