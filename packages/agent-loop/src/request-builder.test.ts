import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  Message,
  RequestHeaderBody,
  SessionEvent,
  SessionLog,
  ToolSpec,
} from '@spine/protocol';
import {
  createDefaultProjector,
  createJsonlStore,
  createMemoryStore,
  Session,
} from '@spine/session-log';
import { afterEach, describe, expect, it } from 'vitest';
import { chainOf, digestRequest } from './internal/canonical.js';
import { replay } from './replay.js';
import { RequestBuilder } from './request-builder.js';
import { SystemPrompt } from './system-prompt.js';

const tools: ToolSpec[] = [
  { name: 'read_file', description: 'Reads a file', parameters: { type: 'object' } },
];
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function exchange(session: SessionLog, turn: number, step: number, text: string): void {
  const at = { turn, step, surfaceOp: { op: 'append' as const } };
  session.append('user/message', { content: text, source: 'user' }, at);
  session.append(
    'assistant/message',
    { content: [{ type: 'text', text: `re: ${text}` }], finishReason: 'stop' },
    at,
  );
}

describe('RequestBuilder', () => {
  it('hashes incrementally to the same digest as a from-scratch hash and records seqs relative to the last request', async () => {
    const session = await Session.create({ store: createMemoryStore() });
    const builder = new RequestBuilder(session);
    const prompt = new SystemPrompt('rules');
    for (let step = 1; step <= 5; step++) {
      exchange(session, 1, step, `message ${step}`);
      const built = builder.buildRequest({
        snapshot: prompt.assemble({ tools }),
        modelId: 'm',
        provider: 'p',
        turn: 1,
        step,
        attempt: 1,
        maxOutputTokens: 100,
      });
      const fresh = digestRequest(structuredClone([...built.request.messages]), {
        model: 'm',
        provider: 'p',
        systemHash: built.header.systemHash,
        toolsHash: built.header.toolsHash,
        sessionId: session.id,
        maxOutputTokens: 100,
      });
      expect(built.header.requestHash).toBe(fresh.requestHash);
      expect(built.header.messagesHash).toBe(fresh.messagesHash);
      expect(built.header.hashing).toBe('chain/1');
      // Each added message is recorded with its chain value (16 hex digits).
      const chain = chainOf(built.request.messages).map((value) => value.slice(0, 16));
      expect(built.header.addedHashes).toEqual(chain.slice(built.header.prefix.kept));
      expect(built.header.prefix.extends).toBe(true);
      if (step > 1) expect(built.header.seqs).toMatchObject({ keep: (step - 1) * 2 });
      expect(built.header.addedHashes).toHaveLength(step === 1 ? 2 : 2);
    }
    const types = session.events().map((event) => event.type);
    expect(types.filter((type) => type === 'prompt/system')).toHaveLength(1);
    expect(types.filter((type) => type === 'tools/defined')).toHaveLength(1);
    expect(replay(session).ok).toBe(true);
  });

  it('attributes a broken prefix to the system prompt, the tools and a compaction', async () => {
    const session = await Session.create({ store: createMemoryStore() });
    const builder = new RequestBuilder(session);
    const prompt = new SystemPrompt('rules');
    const build = (step: number, list: ToolSpec[]): RequestHeaderBody =>
      builder.buildRequest({
        snapshot: prompt.assemble({ tools: list }),
        modelId: 'm',
        provider: 'p',
        turn: 1,
        step,
        attempt: 1,
      }).header;
    exchange(session, 1, 1, 'a');
    build(1, tools);
    prompt.register({ id: 'plugin', sections: [{ id: 'x', text: 'new rule' }] });
    exchange(session, 1, 2, 'b');
    expect(build(2, tools).prefix.causes).toEqual(['system-changed']);
    expect(
      build(2, [...tools, { name: 'grep', description: 'g', parameters: {} }]).prefix.causes,
    ).toEqual(['tools-changed']);
    const [first, , , last] = session.surface();
    session.append(
      'user/message',
      { content: 'summary', source: 'compact-checkpoint' },
      { turn: 1, step: 3, surfaceOp: { op: 'replace', start: first ?? 0, end: last ?? 0 } },
    );
    const compacted = build(3, tools);
    expect(compacted.prefix).toMatchObject({ kept: 0, extends: false });
    expect(compacted.prefix.causes).toContain('compaction-replaced-region');
    expect(replay(session).ok).toBe(true);
  });

  it('restores stored hashes and the previous request after reopening, writing no duplicate prompt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spine-rb-'));
    dirs.push(dir);
    const store = createJsonlStore({ dir, fsync: 'never' });
    const session = await Session.create({ store });
    const prompt = new SystemPrompt('rules');
    exchange(session, 1, 1, 'a');
    new RequestBuilder(session).buildRequest({
      snapshot: prompt.assemble({ tools }),
      modelId: 'm',
      provider: 'p',
      turn: 1,
      step: 1,
      attempt: 1,
    });
    await session.close();
    const reopened = await Session.open({ store, id: session.id });
    exchange(reopened, 2, 1, 'b');
    const header = new RequestBuilder(reopened).buildRequest({
      snapshot: prompt.assemble({ tools }),
      modelId: 'm',
      provider: 'p',
      turn: 2,
      step: 1,
      attempt: 1,
    }).header;
    expect(header.prefix).toMatchObject({ kept: 2, of: 2, extends: true });
    expect(reopened.events().filter((event) => event.type === 'prompt/system')).toHaveLength(1);
    expect(replay(reopened).ok).toBe(true);
    await reopened.close();
  });
});

describe('replay', () => {
  it('names the request, the message and the event seq of a tampered event', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spine-replay-'));
    dirs.push(dir);
    const store = createJsonlStore({ dir, fsync: 'always' });
    const session = await Session.create({ store });
    const builder = new RequestBuilder(session);
    const prompt = new SystemPrompt('rules');
    for (let step = 1; step <= 3; step++) {
      exchange(session, 1, step, `message ${step}`);
      builder.buildRequest({
        snapshot: prompt.assemble({ tools }),
        modelId: 'm',
        provider: 'p',
        turn: 1,
        step,
        attempt: 1,
      });
    }
    const target = session
      .events()
      .find(
        (event) =>
          event.type === 'user/message' &&
          (event.body as { content: string }).content === 'message 2',
      );
    await session.close();
    const file = join(dir, `${session.id}.jsonl`);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('"content":"message 2"');
    writeFileSync(file, text.replace('"content":"message 2"', '"content":"message 2 (edited)"'));
    const reopened = await Session.open({ store, id: session.id, readOnly: true });
    const report = replay(reopened);
    expect(report.ok).toBe(false);
    expect(report.requests.map((request) => request.ok)).toEqual([true, false, false]);
    expect(report.firstMismatch).toMatchObject({
      step: 2,
      mismatch: { field: 'messages[2]', eventSeq: target?.seq },
    });
    await reopened.close();
  });

  it('records an image fallback in the header and its hash, and replays the request with it', async () => {
    const session = await Session.create({ store: createMemoryStore() });
    exchange(session, 1, 1, 'a');
    const input = {
      snapshot: new SystemPrompt('rules').assemble({ tools }),
      modelId: 'm',
      provider: 'p',
      turn: 1,
      step: 1,
      attempt: 1,
    };
    const builder = new RequestBuilder(session);
    const plain = builder.buildRequest(input);
    const built = builder.buildRequest({ ...input, attempt: 2, imageFallback: 'placeholder' });
    expect(plain.header.imageFallback).toBeUndefined();
    expect(plain.request.imageFallback).toBeUndefined();
    expect(built.header.imageFallback).toBe('placeholder');
    expect(built.request.imageFallback).toBe('placeholder');
    expect(built.header.messagesHash).toBe(plain.header.messagesHash);
    expect(built.header.requestHash).not.toBe(plain.header.requestHash);
    const fallbacks: (string | undefined)[] = [];
    const report = replay(session, {
      onRequest: (request) => fallbacks.push(request.imageFallback),
    });
    expect(report.ok).toBe(true);
    expect(fallbacks).toEqual([undefined, 'placeholder']);
    // Taken out of the log, the fallback no longer matches the recorded hash.
    delete (session.get(built.headerSeq)!.body as RequestHeaderBody).imageFallback;
    expect(replay(session).firstMismatch).toMatchObject({ attempt: 2 });
  });

  it('detects an edited system prompt', async () => {
    const session = await Session.create({ store: createMemoryStore() });
    exchange(session, 1, 1, 'a');
    new RequestBuilder(session).buildRequest({
      snapshot: new SystemPrompt('rules').assemble(),
      modelId: 'm',
      provider: 'p',
      turn: 1,
      step: 1,
      attempt: 1,
    });
    const stored = session.events().find((event) => event.type === 'prompt/system');
    (stored?.body as { text: string }).text = 'other rules';
    const report = replay(session);
    expect(report.firstMismatch?.mismatch?.field).toBe('system');
  });

  it('resumes from a snapshot with the saved request-hash chain and records the same hashes as a fresh hash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'spine-resume-'));
    dirs.push(dir);
    const store = createJsonlStore({ dir, fsync: 'never' });
    const prompt = new SystemPrompt('rules');
    const request = (builder: RequestBuilder, turn: number, step: number) =>
      builder.buildRequest({
        snapshot: prompt.assemble({ tools }),
        modelId: 'm',
        provider: 'p',
        turn,
        step,
        attempt: 1,
      });
    const session = await Session.create({ store, id: 'resume' });
    const builder = new RequestBuilder(session);
    for (let step = 1; step <= 4; step++) {
      exchange(session, 1, step, `message ${step}`);
      request(builder, 1, step);
    }
    await session.snapshot();
    await session.close();
    // Counts reads of message content: canonicalising a message for the chain reads it.
    let reads = 0;
    const base = createDefaultProjector();
    const projector = {
      specificationVersion: 1 as const,
      project: (event: SessionEvent) =>
        base.project(event).map((message) => {
          const { content, ...rest } = message as Message & { content: unknown };
          return Object.defineProperty({ ...rest }, 'content', {
            enumerable: true,
            get: () => {
              reads++;
              return content;
            },
          }) as Message;
        }),
    };
    // A full open (the agent loop reads whole sessions until its readers stream ranges).
    for (const round of [1, 2]) {
      const reopened = await Session.open({ store, id: 'resume', projector });
      expect(reopened.snapshotAttachment('agent-loop/request-hash')?.value).toMatchObject({
        generation: 0,
        chain: expect.any(Array),
      });
      expect(reopened.snapshotAttachment('agent-loop/request-hash')?.value).toMatchObject({
        chain: expect.arrayContaining([expect.stringMatching(/^[0-9a-f]{64}$/)]),
      });
      reopened.deriveMessages();
      reads = 0;
      const resumed = new RequestBuilder(reopened);
      exchange(reopened, 1 + round, 1, `after reopening ${round}`);
      const built = request(resumed, 1 + round, 1);
      // The last saved message is checked, the two new ones hashed; the rest are not read.
      const total = built.request.messages.length;
      expect(total).toBeGreaterThanOrEqual(10);
      expect(reads).toBeLessThanOrEqual(3);
      const fresh = digestRequest(structuredClone([...built.request.messages]), {
        model: 'm',
        provider: 'p',
        systemHash: built.header.systemHash,
        toolsHash: built.header.toolsHash,
        sessionId: reopened.id,
      });
      expect(built.header.requestHash).toBe(fresh.requestHash);
      expect(built.header.messagesHash).toBe(fresh.messagesHash);
      await reopened.snapshot();
      await reopened.close();
    }
    const check = await Session.open({ store, id: 'resume', readOnly: true });
    expect(replay(check).ok).toBe(true);
    await check.close();
  });
});
