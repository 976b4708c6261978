import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HookInputSchema, type HookRunBody } from '@spine/protocol';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

// The hook events of issue 38 through `spine run` against the loopback model: each command gets
// its documented JSON on stdin (checked against HookInputSchema), every run is recorded as
// `hook/run`, a permission-request hook that fails or hangs denies, a blocked prompt runs no turn.

interface Event {
  seq: number;
  type: string;
  body: unknown;
}

function withConfig(cwd: string, config: object): void {
  mkdirSync(join(cwd, '.spine'), { recursive: true });
  writeFileSync(join(cwd, '.spine', 'config.json'), JSON.stringify(config));
}

/**
 * The events of the run's own session: the one whose header names no parent (a `task` child's
 * session sits in the same directory, and directory order is not creation order).
 */
function sessionLog(sessionDir: string): Event[] {
  const logs = readdirSync(sessionDir)
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) =>
      readFileSync(join(sessionDir, name), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Event),
    );
  const own = logs.filter(
    (log) => (log[0]?.body as { parent?: unknown } | undefined)?.parent === undefined,
  );
  if (own.length !== 1) throw new Error(`${own.length} top-level sessions in ${sessionDir}`);
  return own[0] as Event[];
}

function hookRuns(log: Event[]): HookRunBody[] {
  return log.filter((event) => event.type === 'hook/run').map((event) => event.body as HookRunBody);
}

function stdinOf(cwd: string, name: string): unknown {
  return HookInputSchema.parse(JSON.parse(readFileSync(join(cwd, name), 'utf8')));
}

const RUN = ['--approval', 'ask', '--sandbox', 'danger-full-access', '--json'];

describe('hook events through spine run', { timeout: 300_000 }, () => {
  it('rewrites the prompt, lets a permission-request hook allow, ends the session; each run recorded', async () => {
    const server = await createScriptedModelServer({
      replies: [
        { toolCalls: [{ id: 'c1', name: 'bash', arguments: '{"command":"echo hi > out.txt"}' }] },
        { text: 'Wrote out.txt.' },
      ],
    });
    try {
      const cwd = exampleWorkspace('spine-hooks-all-');
      withConfig(cwd, {
        hooks: {
          'user-prompt-submit': [`cat > ups.json; echo '{"prompt":"write out.txt, politely"}'`],
          'permission-request': [`cat > perm.json; echo '{"decision":"allow","reason":"ok"}'`],
          'session-end': ['cat > end.json'],
        },
      });
      const { env, sessionDir } = isolatedEnv();
      const ran = await runCli(
        ['run', ...modelArgs(server.baseUrl), '--cwd', cwd, ...RUN, 'write out.txt'],
        { env, timeoutMs: 120_000 },
      );
      expect(ran.code, ran.stderr).toBe(0);
      expect(existsSync(join(cwd, 'out.txt'))).toBe(true);
      expect(stdinOf(cwd, 'ups.json')).toMatchObject({
        event: 'user-prompt-submit',
        prompt: 'write out.txt',
      });
      expect(stdinOf(cwd, 'perm.json')).toMatchObject({
        event: 'permission-request',
        toolName: 'bash',
        args: { command: 'echo hi > out.txt' },
      });
      expect(stdinOf(cwd, 'end.json')).toMatchObject({ event: 'session-end', turns: 1 });
      const messages = server.requests[0]?.body.messages as { role: string; content: string }[];
      expect(messages.filter((message) => message.role === 'user').at(0)?.content).toBe(
        'write out.txt, politely',
      );
      const log = sessionLog(sessionDir);
      expect(hookRuns(log).map((run) => [run.event, run.decision, run.exitCode])).toEqual([
        ['user-prompt-submit', 'rewrite', 0],
        ['permission-request', 'allow', 0],
        ['session-end', 'none', 0],
      ]);
      // The log says the hook decided, not the person.
      expect(log.find((event) => event.type === 'tool/approval')?.body).toMatchObject({
        toolCallId: 'c1',
        decision: 'allow',
        by: 'hook:permission-request',
        reason: 'ok',
        scope: 'once',
      });
      const id = (log[0]?.body as { sessionId?: string } | undefined)?.sessionId ?? '';
      expect((await runCli(['replay', id, '--verify'], { env })).code).toBe(0);
      const fresh = exampleWorkspace('spine-hooks-rerun-');
      withConfig(fresh, { hooks: { 'session-end': ['true'] } });
      const rerun = await runCli(
        ['rerun', id, '--cwd', fresh, '--sandbox', 'danger-full-access', '--json'],
        { env, timeoutMs: 120_000 },
      );
      expect(
        JSON.parse(rerun.stdout.trim().split('\n').at(-1) ?? '{}'),
        rerun.stderr,
      ).toMatchObject({ ok: true });
    } finally {
      await server.close();
    }
  });

  for (const [name, hook] of [
    ['fails', 'cat > /dev/null; echo broken >&2; exit 1'],
    ['hangs', { command: 'sleep 30', timeoutMs: 500 }],
  ] as const) {
    it(`denies the call when the permission-request hook ${name}`, async () => {
      const server = await createScriptedModelServer({
        replies: [
          { toolCalls: [{ id: 'c1', name: 'bash', arguments: '{"command":"echo hi > out.txt"}' }] },
          { text: 'I could not write it.' },
        ],
      });
      try {
        const cwd = exampleWorkspace('spine-hooks-deny-');
        withConfig(cwd, { hooks: { 'permission-request': [hook] } });
        const { env, sessionDir } = isolatedEnv();
        const ran = await runCli(
          ['run', ...modelArgs(server.baseUrl), '--cwd', cwd, ...RUN, 'write out.txt'],
          { env, timeoutMs: 120_000 },
        );
        expect(ran.code, ran.stderr).toBe(4);
        expect(existsSync(join(cwd, 'out.txt'))).toBe(false);
        const log = sessionLog(sessionDir);
        const result = log.find((event) => event.type === 'tool/result');
        expect(result?.body).toMatchObject({ toolName: 'bash', isError: true, outcome: 'denied' });
        const [run] = hookRuns(log);
        expect(run).toMatchObject({ event: 'permission-request', decision: 'deny' });
        expect(run?.timedOut).toBe(name === 'hangs');
        expect(log.find((event) => event.type === 'tool/approval')?.body).toMatchObject({
          decision: 'deny',
          by: 'hook:permission-request',
          reason: name === 'fails' ? expect.stringContaining('broken') : expect.any(String),
        });
        if (name === 'fails') {
          // Replay and an offline rerun (the recorded hook answer, not the hook) still agree.
          const id = (log[0]?.body as { sessionId?: string } | undefined)?.sessionId ?? '';
          expect((await runCli(['replay', id, '--verify'], { env })).code).toBe(0);
          const rerun = await runCli(
            ['rerun', id, '--cwd', exampleWorkspace('spine-hooks-rerun-deny-'), '--json'],
            { env, timeoutMs: 120_000 },
          );
          const rerunLast = JSON.parse(rerun.stdout.trim().split('\n').at(-1) ?? '{}');
          expect(rerunLast, rerun.stderr).toMatchObject({ ok: true });
        }
      } finally {
        await server.close();
      }
    });
  }

  it('runs no turn when a user-prompt-submit hook blocks the prompt', async () => {
    const server = await createScriptedModelServer({ replies: [{ text: 'never sent' }] });
    try {
      const cwd = exampleWorkspace('spine-hooks-block-');
      withConfig(cwd, {
        hooks: {
          'user-prompt-submit': ['cat > /dev/null; echo "no secrets in prompts" >&2; exit 2'],
        },
      });
      const { env, sessionDir } = isolatedEnv();
      const ran = await runCli(
        ['run', ...modelArgs(server.baseUrl), '--cwd', cwd, ...RUN, 'print the API key'],
        { env, timeoutMs: 120_000 },
      );
      expect(ran.code).toBe(4);
      expect(ran.stderr).toContain('no secrets in prompts');
      expect(server.requests).toHaveLength(0);
      const log = sessionLog(sessionDir);
      expect(log.some((event) => event.type === 'turn/start')).toBe(false);
      expect(hookRuns(log)).toMatchObject([
        { event: 'user-prompt-submit', decision: 'block', exitCode: 2 },
      ]);
    } finally {
      await server.close();
    }
  });

  it('fires subagent-start and subagent-stop around a task child', async () => {
    const server = await createScriptedModelServer({
      replies: (request) => {
        const messages = request.body.messages as { role: string; content?: unknown }[];
        const child = messages.some(
          (message) => typeof message.content === 'string' && message.content.includes('[[child]]'),
        );
        const steps = messages.filter((message) => message.role === 'assistant').length;
        if (child) return { text: 'add is in src/add.js.' };
        if (steps === 0) {
          return {
            toolCalls: [
              {
                id: 'call_task',
                name: 'task',
                arguments: JSON.stringify({
                  description: 'find add',
                  prompt: '[[child]] where is add defined?',
                  profile: 'explore',
                }),
              },
            ],
          };
        }
        return { text: 'Found it.' };
      },
    });
    try {
      const cwd = exampleWorkspace('spine-hooks-sub-');
      withConfig(cwd, {
        hooks: {
          'subagent-start': ['cat >> sub.jsonl; echo >> sub.jsonl'],
          'subagent-stop': ['cat >> sub.jsonl; echo >> sub.jsonl'],
        },
      });
      const { env, sessionDir } = isolatedEnv();
      const ran = await runCli(
        ['run', ...modelArgs(server.baseUrl), '--cwd', cwd, ...RUN, 'where is add?'],
        { env, timeoutMs: 120_000 },
      );
      expect(ran.code, ran.stderr).toBe(0);
      const lines = readFileSync(join(cwd, 'sub.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => HookInputSchema.parse(JSON.parse(line)));
      expect(lines).toMatchObject([
        { event: 'subagent-start', profile: 'explore', description: 'find add' },
        { event: 'subagent-stop', profile: 'explore', reason: 'completed' },
      ]);
      const events = hookRuns(sessionLog(sessionDir)).map((run) => run.event);
      expect(events).toEqual(['subagent-start', 'subagent-stop']);
    } finally {
      await server.close();
    }
  });
});
