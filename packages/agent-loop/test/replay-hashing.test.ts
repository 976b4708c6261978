import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message, SessionLog, ToolSpec } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ReplayReport,
  RequestBuilder,
  type RequestHeaderBody,
  replay,
  SystemPrompt,
} from '../src/index.js';
import { digestRequest } from '../src/internal/canonical.js';
import { legacyDigestRequest, legacyMessageHash } from '../src/internal/canonical-legacy.js';
import { paramsOfHeader, type RequestParams } from '../src/internal/request-params.js';

// Replay against real JSONL files for both hashing schemes: headers written now (`chain/1`),
// headers in the legacy form (no `hashing`, running hash), and the reference CLI's example
// session as it was recorded before `chain/1`. Every tamper is a byte edit of the file, then a
// read-only reopen.

const EXAMPLE_BEFORE_CHAIN = new URL(
  '../../../apps/reference-cli/test/fixtures/example-fix-add-before-chain.jsonl',
  import.meta.url,
);
const tools: ToolSpec[] = [{ name: 'read', description: 'Reads a file', parameters: {} }];
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Recorded {
  dir: string;
  id: string;
  /** Per request: its header seq, the message seqs and the messages it carried. */
  requests: Array<{ seq: number; seqs: number[]; messages: Message[] }>;
}

type JsonEvent = { seq: number; type: string; body: Record<string, unknown> };

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'spine-hashing-'));
  dirs.push(dir);
  return dir;
}

function exchange(session: SessionLog, step: number, text: string): void {
  const at = { turn: 1, step, surfaceOp: { op: 'append' as const } };
  session.append('user/message', { content: text, source: 'user' }, at);
  session.append(
    'assistant/message',
    { content: [{ type: 'text', text: `re: ${text}` }], finishReason: 'stop' },
    at,
  );
}

/** Records five requests: appends, a compaction that replaces a region, and a retry. */
async function recordSession(): Promise<Recorded> {
  const dir = tempDir();
  const session = await Session.create({ store: createJsonlStore({ dir, fsync: 'never' }) });
  const requests: Recorded['requests'] = [];
  await continueSession(session, requests, 1);
  await session.close();
  return { dir, id: session.id, requests };
}

async function continueSession(
  session: Session,
  requests: Recorded['requests'],
  first: number,
): Promise<void> {
  const builder = new RequestBuilder(session);
  const prompt = new SystemPrompt('rules');
  const build = (step: number, attempt = 1): void => {
    const { headerSeq, request } = builder.buildRequest({
      snapshot: prompt.assemble({ tools }),
      modelId: 'm',
      provider: 'p',
      turn: 1,
      step,
      attempt,
      maxOutputTokens: 64,
      reasoning: { enabled: true, effort: 'low' },
    });
    const seqs = [...session.deriveMessages().seqs];
    requests.push({ seq: headerSeq, seqs, messages: structuredClone([...request.messages]) });
  };
  exchange(session, first, `alpha ${first}`);
  build(first);
  exchange(session, first + 1, `beta ${first}`);
  build(first + 1);
  const surface = session.surface();
  session.append(
    'user/message',
    { content: `summary ${first}`, source: 'compact-checkpoint' },
    {
      turn: 1,
      step: first + 2,
      surfaceOp: { op: 'replace', start: surface[1] as number, end: surface[2] as number },
    },
  );
  exchange(session, first + 2, `gamma ${first}`);
  build(first + 2);
  build(first + 2, 2);
  exchange(session, first + 3, `delta ${first}`);
  build(first + 3);
}

function readEvents(dir: string, id: string): JsonEvent[] {
  const text = readFileSync(join(dir, `${id}.jsonl`), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as JsonEvent);
}

/** Copies the session, applies `edit` to its events, reopens it read-only and replays it. */
async function replayEdited(
  source: { dir: string; id: string },
  edit: (events: JsonEvent[]) => void,
): Promise<ReplayReport> {
  const dir = tempDir();
  const events = readEvents(source.dir, source.id);
  edit(events);
  const lines = events.map((event) => JSON.stringify(event)).join('\n');
  writeFileSync(join(dir, `${source.id}.jsonl`), `${lines}\n`);
  const session = await Session.open({
    store: createJsonlStore({ dir }),
    id: source.id,
    readOnly: true,
  });
  try {
    return replay(session);
  } finally {
    await session.close();
  }
}

function paramsOf(header: RequestHeaderBody): RequestParams {
  return paramsOfHeader(header);
}

/** Rewrites `chain/1` headers into the legacy form, as sessions recorded before the chain are. */
function toLegacy(recorded: Recorded): (events: JsonEvent[]) => void {
  return (events) => {
    for (const request of recorded.requests) {
      const event = events.find((candidate) => candidate.seq === request.seq);
      const header = event?.body as unknown as RequestHeaderBody;
      const digest = legacyDigestRequest(request.messages, paramsOf(header));
      header.addedHashes = request.messages.slice(header.prefix.kept).map(legacyMessageHash);
      header.messagesHash = digest.messagesHash;
      header.requestHash = digest.requestHash;
      delete header.hashing;
    }
  };
}

/** Changes one character of a message event's text (`at`: index into the text). */
function editText(event: JsonEvent, at: number): void {
  const flip = (text: string): string => {
    const index = at < 0 ? text.length + at : at;
    const next = text[index] === 'x' ? 'y' : 'x';
    return text.slice(0, index) + next + text.slice(index + 1);
  };
  const body = event.body as { content: string | Array<{ text: string }> };
  if (typeof body.content === 'string') body.content = flip(body.content);
  else
    (body.content[0] as { text: string }).text = flip((body.content[0] as { text: string }).text);
}

/** The first request carrying the message of `seq`, and that message's index in it. */
function firstUse(recorded: Recorded, seq: number): { request: number; index: number } {
  const request = recorded.requests.findIndex((candidate) => candidate.seqs.includes(seq));
  return { request, index: recorded.requests[request]?.seqs.indexOf(seq) ?? -1 };
}

describe('replay with the message chain (chain/1)', () => {
  it('verifies every request, each header naming its scheme and hashing as a third party would', async () => {
    const recorded = await recordSession();
    const events = readEvents(recorded.dir, recorded.id);
    for (const request of recorded.requests) {
      const header = events.find((event) => event.seq === request.seq)
        ?.body as unknown as RequestHeaderBody;
      expect(header.hashing).toBe('chain/1');
      const digest = digestRequest(request.messages, paramsOf(header));
      expect(header.messagesHash).toBe(digest.messagesHash);
      expect(header.requestHash).toBe(digest.requestHash);
    }
    const report = await replayEdited(recorded, () => {});
    expect(report.ok).toBe(true);
    expect(report.requests).toHaveLength(5);
  });

  it('names the exact message of a tampered byte in every request that carries it', async () => {
    const recorded = await recordSession();
    const messageEvents = readEvents(recorded.dir, recorded.id).filter(
      (event) => event.type === 'user/message' || event.type === 'assistant/message',
    );
    for (const target of messageEvents) {
      for (const at of [0, -1]) {
        const report = await replayEdited(recorded, (events) => {
          editText(events.find((event) => event.seq === target.seq) as JsonEvent, at);
        });
        const use = firstUse(recorded, target.seq);
        expect(report.ok).toBe(false);
        expect(report.firstMismatch).toMatchObject({
          seq: recorded.requests[use.request]?.seq,
          mismatch: { field: `messages[${use.index}]`, eventSeq: target.seq },
        });
        recorded.requests.forEach((request, i) => {
          const index = request.seqs.indexOf(target.seq);
          const verdict = report.requests[i];
          if (index < 0) expect(verdict?.ok).toBe(true);
          else expect(verdict?.mismatch?.field).toBe(`messages[${index}]`);
        });
      }
    }
  });

  it('names the params, the system prompt, the hashes and an unknown scheme', async () => {
    const recorded = await recordSession();
    const second = recorded.requests[1]?.seq;
    const header = (events: JsonEvent[]): Record<string, unknown> =>
      (events.find((event) => event.seq === second) as JsonEvent).body;
    const fieldOf = async (edit: (events: JsonEvent[]) => void) =>
      (await replayEdited(recorded, edit)).firstMismatch?.mismatch?.field;
    const withHeader = (key: string, value: unknown) => (events: JsonEvent[]) => {
      header(events)[key] = value;
    };
    expect(await fieldOf(withHeader('maxOutputTokens', 65))).toBe('params');
    expect(await fieldOf(withHeader('reasoning', { enabled: true, effort: 'high' }))).toBe(
      'params',
    );
    expect(await fieldOf(withHeader('hashing', 'chain/9'))).toBe('hashing');
    expect(
      await fieldOf((events) => {
        const added = header(events).addedHashes as string[];
        added[1] = '0000000000000000';
      }),
    ).toBe('addedHashes[1]');
    expect(
      await fieldOf((events) => {
        const stored = events.find((event) => event.type === 'prompt/system') as JsonEvent;
        stored.body.text = 'rules!';
      }),
    ).toBe('system');
  });
});

describe('replay of legacy headers (no hashing field)', () => {
  it('verifies the example session recorded before chain/1 and names its tampered message, params and system', async () => {
    const source = { dir: tempDir(), id: 'example-fix-add' };
    copyFileSync(EXAMPLE_BEFORE_CHAIN, join(source.dir, `${source.id}.jsonl`));
    const headers = readEvents(source.dir, source.id).filter(
      (event) => event.type === 'request/header',
    );
    expect(headers.length).toBe(5);
    for (const event of headers) expect(event.body.hashing).toBeUndefined();
    const clean = await replayEdited(source, () => {});
    expect(clean.ok).toBe(true);
    expect(clean.requests).toHaveLength(5);

    const task = readEvents(source.dir, source.id).find((event) => event.type === 'user/message');
    const tampered = await replayEdited(source, (events) => {
      editText(events.find((event) => event.seq === task?.seq) as JsonEvent, 5);
    });
    expect(tampered.firstMismatch).toMatchObject({
      seq: headers[0]?.seq,
      mismatch: { field: 'messages[0]', eventSeq: task?.seq },
    });
    const params = await replayEdited(source, (events) => {
      (events.find((event) => event.seq === headers[2]?.seq) as JsonEvent).body.model = 'other';
    });
    expect(params.firstMismatch).toMatchObject({
      seq: headers[2]?.seq,
      mismatch: { field: 'params' },
    });
    const system = await replayEdited(source, (events) => {
      const stored = events.find((event) => event.type === 'prompt/system') as JsonEvent;
      stored.body.text = `${stored.body.text as string} `;
    });
    expect(system.firstMismatch?.mismatch?.field).toBe('system');
  });

  it('verifies legacy headers built with the legacy code and names tampered messages and params', async () => {
    const recorded = await recordSession();
    const legacy = toLegacy(recorded);
    expect((await replayEdited(recorded, legacy)).ok).toBe(true);
    const messageEvents = readEvents(recorded.dir, recorded.id).filter(
      (event) => event.type === 'user/message' || event.type === 'assistant/message',
    );
    for (const target of messageEvents) {
      const report = await replayEdited(recorded, (events) => {
        legacy(events);
        editText(events.find((event) => event.seq === target.seq) as JsonEvent, -1);
      });
      const use = firstUse(recorded, target.seq);
      expect(report.firstMismatch).toMatchObject({
        seq: recorded.requests[use.request]?.seq,
        mismatch: { field: `messages[${use.index}]`, eventSeq: target.seq },
      });
    }
    const params = await replayEdited(recorded, (events) => {
      legacy(events);
      const last = recorded.requests.at(-1)?.seq;
      (events.find((event) => event.seq === last) as JsonEvent).body.maxOutputTokens = 1;
    });
    expect(params.firstMismatch?.mismatch?.field).toBe('params');
  });

  it('verifies a legacy session continued with chain headers, naming a later tampered message', async () => {
    const recorded = await recordSession();
    const dir = tempDir();
    const events = readEvents(recorded.dir, recorded.id);
    toLegacy(recorded)(events);
    writeFileSync(
      join(dir, `${recorded.id}.jsonl`),
      `${events.map((event) => JSON.stringify(event)).join('\n')}\n`,
    );
    const store = createJsonlStore({ dir, fsync: 'never' });
    const session = await Session.open({ store, id: recorded.id });
    const legacyCount = recorded.requests.length;
    await continueSession(session, recorded.requests, 10);
    await session.close();
    const mixed = { dir, id: recorded.id };
    const all = readEvents(dir, recorded.id).filter((event) => event.type === 'request/header');
    expect(all.map((event) => event.body.hashing ?? 'legacy')).toEqual([
      ...Array<string>(legacyCount).fill('legacy'),
      ...Array<string>(recorded.requests.length - legacyCount).fill('chain/1'),
    ]);
    expect((await replayEdited(mixed, () => {})).ok).toBe(true);
    const late = all.at(-1)?.seq ?? 0;
    const target = readEvents(dir, recorded.id).findLast(
      (event) => event.type === 'user/message' && event.seq < late,
    ) as JsonEvent;
    const report = await replayEdited(mixed, (edited) => {
      editText(edited.find((event) => event.seq === target.seq) as JsonEvent, 0);
    });
    const use = firstUse(recorded, target.seq);
    expect(report.firstMismatch).toMatchObject({
      seq: recorded.requests[use.request]?.seq,
      mismatch: { field: `messages[${use.index}]`, eventSeq: target.seq },
    });
  });
});
