import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoopDetectedBody, LoopKind, UserMessageBody } from '@spine/protocol';
import { createScriptedModelServer, type ScriptedReply } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { exampleWorkspace, isolatedEnv, modelArgs, runCli } from './run-cli.js';

// Each kind of loop through the real CLI against the loopback model: detected at its threshold
// (recorded, the model told in its next request), then the turn stopped (`stuck`, exit 9); the
// session replays with --verify and reruns offline in a fresh copy of the workspace.

interface Event {
  seq: number;
  type: string;
  step?: number;
  body: unknown;
}

function call(id: string, name: string, args: object): ScriptedReply {
  return { toolCalls: [{ id, name, arguments: JSON.stringify(args) }] };
}

const read = (id: string, path: string): ScriptedReply => call(id, 'read', { path });
const bash = (id: string, command: string): ScriptedReply => call(id, 'bash', { command });
const PARAGRAPH =
  'I am going to look at the adder once more, because the failing test might depend on how the numbers are parsed before they are added together.';

const CASES: {
  kind: LoopKind;
  replies: ScriptedReply[];
  noted: number;
  stopped: number;
  config?: object;
}[] = [
  {
    kind: 'repeated-call',
    replies: [1, 2, 3, 4, 5, 6].map((i) => read(`c${i}`, 'src/add.js')),
    noted: 3,
    stopped: 5,
  },
  {
    kind: 'repeated-call',
    replies: [1, 2, 3, 4, 5, 6].map((i) => read(`c${i}`, 'src/add.js')),
    config: { loops: { repeatedCall: 2, stopAfter: 1 } },
    noted: 2,
    stopped: 3,
  },
  {
    kind: 'repeated-error',
    // Different commands, the same failure.
    replies: ['a', 'b', 'c', 'd', 'e', 'f'].map((tag, i) => bash(`c${i}`, `exit 3 # ${tag}`)),
    noted: 3,
    stopped: 5,
  },
  {
    kind: 'alternating-calls',
    // A counter file makes every bash result new: only the calls alternate.
    replies: Array.from({ length: 9 }, (_, i) =>
      i % 2 === 0 ? bash(`c${i}`, 'echo x >> n.txt; wc -l < n.txt') : read(`c${i}`, 'test.js'),
    ),
    noted: 6,
    stopped: 8,
  },
  {
    kind: 'repeated-text',
    replies: ['src/add.js', 'test.js', 'package.json', 'AGENTS.md'].map((path, i) => ({
      text: `${PARAGRAPH}\n\n${PARAGRAPH}\n\n${PARAGRAPH}`,
      toolCalls: [{ id: `c${i}`, name: 'read', arguments: JSON.stringify({ path }) }],
    })),
    noted: 1,
    stopped: 3,
  },
  {
    kind: 'no-progress',
    replies: ['src/add.js', 'test.js', 'package.json', 'src/add.js', 'test.js', 'package.json']
      .concat(['src/add.js', 'test.js', 'package.json'])
      .map((path, i) => read(`c${i}`, path)),
    noted: 6,
    stopped: 8,
  },
];

function sessionLog(sessionDir: string): Event[] {
  const file = readdirSync(sessionDir).find((name) => name.endsWith('.jsonl'));
  if (!file) throw new Error(`no session in ${sessionDir}`);
  return readFileSync(join(sessionDir, file), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Event);
}

describe('loop detection through spine run', { timeout: 300_000 }, () => {
  for (const [index, loop] of CASES.entries()) {
    it(`detects ${loop.kind} at its threshold, tells the model, then stops with exit 9 (${index})`, async () => {
      const server = await createScriptedModelServer({ replies: loop.replies });
      try {
        const cwd = exampleWorkspace('spine-loops-');
        if (loop.config) {
          mkdirSync(join(cwd, '.spine'));
          writeFileSync(join(cwd, '.spine', 'config.json'), JSON.stringify(loop.config));
        }
        const { env, sessionDir } = isolatedEnv();
        const args = ['--cwd', cwd, '--approval', 'never-ask', '--sandbox', 'danger-full-access'];
        const ran = await runCli(
          ['run', ...modelArgs(server.baseUrl), ...args, '--json', 'make the tests pass'],
          { env, timeoutMs: 120_000 },
        );
        expect(ran.code, ran.stderr).toBe(9);
        const log = sessionLog(sessionDir);
        const loops = log.filter((event) => event.type === 'loop/detected');
        expect(loops.map((event) => [(event.body as LoopDetectedBody).action, event.step])).toEqual(
          [
            ['noted', loop.noted],
            ['stopped', loop.stopped],
          ],
        );
        expect((loops[0]?.body as LoopDetectedBody | undefined)?.kind).toBe(loop.kind);
        // The model read the note in the request after the detection.
        const request = server.requests[loop.noted]?.body as {
          messages: { role: string; content?: string }[];
        };
        expect(request.messages.at(-1)?.content).toContain(`<loop-detector kind="${loop.kind}">`);
        const note = log.find(
          (event) => (event.body as UserMessageBody).source === 'loop-detector',
        );
        expect((note?.body as UserMessageBody | undefined)?.meta).toEqual({
          loopSeq: loops[0]?.seq,
        });
        const end = log.findLast((event) => event.type === 'turn/end');
        expect(end?.body).toMatchObject({ reason: 'stuck', error: { code: 'LOOP_DETECTED' } });
        expect(server.requests).toHaveLength(loop.stopped);

        const id = (log[0]?.body as { sessionId?: string } | undefined)?.sessionId ?? '';
        const verified = await runCli(['replay', id, '--verify'], { env, timeoutMs: 120_000 });
        expect(verified.code, verified.stderr).toBe(0);
        const fresh = exampleWorkspace('spine-loops-rerun-');
        if (loop.config) {
          mkdirSync(join(fresh, '.spine'));
          writeFileSync(join(fresh, '.spine', 'config.json'), JSON.stringify(loop.config));
        }
        const rerun = await runCli(
          ['rerun', id, '--cwd', fresh, '--sandbox', 'danger-full-access', '--json'],
          { env, timeoutMs: 120_000 },
        );
        const summary = JSON.parse(rerun.stdout.trim().split('\n').at(-1) ?? '{}');
        expect(summary, rerun.stderr).toMatchObject({ ok: true });
        expect(rerun.code).toBe(0);
      } finally {
        await server.close();
      }
    });
  }
});
