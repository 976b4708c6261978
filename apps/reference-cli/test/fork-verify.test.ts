// A fork of a recorded session passes `spine verify` and `spine replay --verify` wherever it is
// taken; a parent whose chain is broken is not forked (a fork would re-seal the damage); and
// `spine verify` tells a torn last write from bytes appended or altered after the last line.
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createScriptedModelServer, type ScriptedModelServer } from '@spine/test-utils';
import { afterAll, describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

const servers: ScriptedModelServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

/** A session of two turns (two requests, each recording the chain head) in a fresh folder. */
async function recordedSession(): Promise<{ env: NodeJS.ProcessEnv; dir: string; id: string }> {
  const { env, sessionDir } = isolatedEnv();
  const model = await createScriptedModelServer({
    replies: [{ text: 'first answer' }, { text: 'second answer' }],
  });
  servers.push(model);
  const cwd = exampleWorkspace('spine-fork-verify-');
  const first = await runCli(['run', ...modelArgs(model.baseUrl), '--cwd', cwd, '--json', 'one'], {
    env,
  });
  expect(first.code).toBe(0);
  const id = JSON.parse(first.stdout.split('\n')[0] ?? '').body.sessionId as string;
  const second = await runCli(['resume', id, ...modelArgs(model.baseUrl), '--cwd', cwd, 'two'], {
    env,
  });
  expect(second.code).toBe(0);
  return { env, dir: sessionDir, id };
}

function lines(dir: string, id: string): Array<{ seq: number; type: string }> {
  return readFileSync(join(dir, `${id}.jsonl`), 'utf8')
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('spine fork and spine verify', { timeout: 300_000 }, () => {
  it('makes forks that verify and replay at every request of the session', async () => {
    const { env, dir, id } = await recordedSession();
    const events = lines(dir, id);
    const requests = events.filter((event) => event.type === 'request/header');
    expect(requests.length).toBeGreaterThanOrEqual(2);
    // At each request, just after the last one, and the whole log.
    const points = new Set([events.length, (requests.at(-1)?.seq ?? 1) + 1]);
    for (const request of requests) points.add(request.seq);
    for (const at of points) {
      if (at > events.length) continue;
      const fork = await runCli(['fork', id, '--at', String(at)], { env });
      expect(fork.code, fork.stderr).toBe(0);
      const child = fork.stdout.trim();
      const verified = await runCli(['verify', child], { env });
      expect(verified.code, `fork at ${at}: ${verified.stdout}`).toBe(0);
      expect(verified.stdout).toContain('every event chains from the header');
      const replayed = await runCli(['replay', child, '--verify'], { env });
      expect(replayed.code, `fork at ${at}: ${replayed.stdout}${replayed.stderr}`).toBe(0);
      if (at !== events.length) continue;
      // A fork of the fork, taken inside the copied part.
      const again = await runCli(['fork', child, '--at', String(requests[0]?.seq ?? 2)], { env });
      expect(again.code).toBe(0);
      expect((await runCli(['verify', again.stdout.trim()], { env })).code).toBe(0);
    }
  });

  it('refuses --at 0 and --at 00 as a usage error', async () => {
    // Refused before the session is looked at.
    const { env } = isolatedEnv();
    for (const at of ['0', '00']) {
      const result = await runCli(['fork', 'any', '--at', at], { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--at expects the seq to fork at (a positive integer)');
      expect(result.stderr).not.toContain('This is a bug');
    }
  });

  it('does not fork a parent whose chain is broken (exit 2), so the damage is not re-sealed', async () => {
    const { env, dir, id } = await recordedSession();
    const path = join(dir, `${id}.jsonl`);
    writeFileSync(path, readFileSync(path, 'utf8').replace('first answer', 'other answer'));
    expect((await runCli(['verify', id], { env })).code).toBe(5);
    const before = readdirSync(dir).filter((name) => name.endsWith('.jsonl')).length;
    const fork = await runCli(['fork', id, '--at', '20'], { env });
    expect(fork.code).toBe(2);
    expect(fork.stderr).toContain('does not match its chain value');
    expect(fork.stderr).toContain('it was not forked');
    expect(readdirSync(dir).filter((name) => name.endsWith('.jsonl')).length).toBe(before);
  });

  it('tells a torn last write (exit 0, !) from bytes appended or a last line altered (exit 5)', async () => {
    const { env, dir, id } = await recordedSession();
    const path = join(dir, `${id}.jsonl`);
    const original = readFileSync(path, 'utf8');
    const next = lines(dir, id).length + 1;

    appendFileSync(path, `{"seq":${next},"type":"turn/st`);
    const torn = await runCli(['verify', id], { env });
    expect(torn.code).toBe(0);
    expect(torn.stdout).toMatch(/^! /);
    expect(torn.stdout).toContain('torn last write');
    const tornJson = JSON.parse((await runCli(['verify', id, '--json'], { env })).stdout);
    expect(tornJson).toMatchObject({ ok: true, bytes: Buffer.byteLength(original) });
    expect(tornJson.tail.bytes).toBe(`{"seq":${next},"type":"turn/st`.length);

    writeFileSync(path, `${original}GARBAGE`);
    const garbage = await runCli(['verify', id], { env });
    expect(garbage.code).toBe(5);
    expect(garbage.stdout).toContain('were appended to the log');

    writeFileSync(
      path,
      original.slice(0, -1).replace('"reason":"completed"', '"reason":"TAMPERED"'),
    );
    const altered = await runCli(['verify', id, '--json'], { env });
    expect(altered.code).toBe(5);
    expect(JSON.parse(altered.stdout).ok).toBe(false);
  });

  it('refuses an empty file as not a session (exit 2)', async () => {
    const { env, sessionDir } = isolatedEnv();
    mkdirSync(sessionDir, { recursive: true });
    writeFileSync(join(sessionDir, 'empty.jsonl'), '');
    const result = await runCli(['verify', 'empty'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the file is empty');
  });
});
