import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requestHeader } from '../test/request-header.js';
import { sealText } from './internal/chain.js';
import { Session } from './session.js';
import { createJsonlStore } from './store-jsonl.js';
import { createMemoryStore } from './store-memory.js';
import { verifyJsonlLog } from './verify-jsonl.js';

const dir = mkdtempSync(join(tmpdir(), 'spine-verify-requests-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const surface = { surfaceOp: { op: 'append' as const } };

/**
 * Turns that each end with a request/header recording (or not) the chain head. The events are
 * flushed before each request, as a step's are while it waits for the model, so the head is the
 * line just before the header.
 */
async function writeLog(id: string, record: boolean): Promise<string> {
  const session = await Session.create({
    store: createJsonlStore({ dir, fsync: 'never' }),
    id,
    snapshots: false,
  });
  for (let turn = 1; turn <= 4; turn++) {
    session.append(
      'user/message',
      { content: `change "${turn}"\nplease`, source: 'user' },
      { turn, ...surface },
    );
    await session.flush();
    session.append(
      'request/header',
      requestHeader(turn, record ? session.chainHead() : undefined),
      { turn },
    );
    session.append(
      'assistant/message',
      { content: [{ type: 'text', text: `done ${turn}` }], finishReason: 'stop' },
      { turn, ...surface },
    );
  }
  await session.close();
  return join(dir, `${id}.jsonl`);
}

/** Rewrites event `seq`'s text and re-seals every line from it on, as a forger would. */
function rewriteAndReseal(path: string, seq: number): void {
  const lines = readFileSync(path, 'utf8').slice(0, -1).split('\n');
  let previous = '';
  const out: string[] = [];
  for (const [index, line] of lines.entries()) {
    const value = JSON.parse(line) as { h: string; seq: number };
    if (value.seq < seq) {
      out.push(line);
      previous = value.h;
      continue;
    }
    let json = `${line.slice(0, line.lastIndexOf(',"h":"'))}}`;
    if (index === seq - 1) json = json.replace('please', 'delete everything');
    const sealed = sealText(json, previous);
    out.push(sealed.line.slice(0, -1));
    previous = sealed.head;
  }
  writeFileSync(path, `${out.join('\n')}\n`);
}

describe('request/header chain values', () => {
  it('records the chain head of the line before each request, and verify checks it', async () => {
    const path = await writeLog('recorded', true);
    const lines = readFileSync(path, 'utf8').slice(0, -1).split('\n');
    for (const [index, line] of lines.entries()) {
      const event = JSON.parse(line) as {
        type: string;
        body: { chain?: { seq: number; h: string } };
      };
      if (event.type !== 'request/header') continue;
      const before = JSON.parse(lines[index - 1] as string) as { seq: number; h: string };
      expect(event.body.chain).toEqual({ seq: before.seq, h: before.h });
    }
    expect(verifyJsonlLog(path)).toMatchObject({ ok: true, events: 13 });
  });

  it('finds a log rewritten and re-sealed from an early event on through the request records', async () => {
    // Without request records the forgery re-seals cleanly: the chain alone is not a signature.
    const bare = await writeLog('bare', false);
    rewriteAndReseal(bare, 2);
    expect(readFileSync(bare, 'utf8')).toContain('delete everything');
    expect(verifyJsonlLog(bare).ok).toBe(true);

    const path = await writeLog('forged', true);
    rewriteAndReseal(path, 2);
    const result = verifyJsonlLog(path);
    expect(result.ok).toBe(false);
    // Event 2 (the first request) was rewritten; the request/header after it (seq 3) recorded
    // the chain value the log had then.
    expect(result.problem).toMatchObject({ kind: 'altered', seq: 2, line: 3 });
    expect(result.problem?.message).toContain('request/header 3');
  });

  it('names the last line written, without writing the events still waiting for their group', async () => {
    const session = await Session.create({
      store: createJsonlStore({ dir, fsync: 'never' }),
      id: 'lagging',
      snapshots: false,
    });
    session.append('user/message', { content: 'a', source: 'user' }, surface);
    session.append('user/message', { content: 'b', source: 'user' }, surface);
    // Nothing written since the header line: the record names it, and verify accepts that.
    expect(session.chainHead()?.seq).toBe(1);
    session.append('request/header', requestHeader(1, session.chainHead()), { turn: 1 });
    await session.flush();
    expect(session.chainHead()?.seq).toBe(4);
    await session.close();
    const path = join(dir, 'lagging.jsonl');
    expect(verifyJsonlLog(path)).toMatchObject({ ok: true, events: 4 });
    // A record naming a line the log does not have where it says is found.
    const text = readFileSync(path, 'utf8');
    const forged = text.replace('"chain":{"seq":1,', '"chain":{"seq":2,');
    const lines = forged.slice(0, -1).split('\n');
    let previous = '';
    const sealed = lines.map((line) => {
      const out = sealText(`${line.slice(0, line.lastIndexOf(',"h":"'))}}`, previous);
      previous = out.head;
      return out.line;
    });
    writeFileSync(path, sealed.join(''));
    expect(verifyJsonlLog(path).problem).toMatchObject({ kind: 'altered', seq: 2, line: 4 });
  });

  it('leaves stores without a chain without a value', async () => {
    const session = await Session.create({ store: createMemoryStore() });
    session.append('user/message', { content: 'hi', source: 'user' }, surface);
    expect(session.chainHead()).toBeUndefined();
    const unchained = await Session.create({
      store: createJsonlStore({ dir, fsync: 'never', chain: false }),
      snapshots: false,
    });
    unchained.append('user/message', { content: 'hi', source: 'user' }, surface);
    expect(unchained.chainHead()).toBeUndefined();
    await unchained.close();
  });
});
