import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replay } from '@spine/agent-loop';
import type { Message, SessionEvent } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { createScriptedModelServer } from '@spine/test-utils';
import { describe, expect, it } from 'vitest';
import { BIN, exampleWorkspace, isolatedEnv, modelArgs, runCli, tempFolder } from './run-cli.js';
import { spineCommand, TmuxTerminal } from './tmux.js';

function readEvents(path: string): SessionEvent[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as SessionEvent);
}

/** Where the manual compaction sits: turns started before it, and its recorded summary text. */
function manualCompaction(events: readonly SessionEvent[]): {
  turnsBefore: number;
  summary: unknown;
  turns: number;
} {
  const start = events.find(
    (event) =>
      event.type === 'compaction/start' && (event.body as { reason: string }).reason === 'manual',
  );
  expect(start).toBeDefined();
  const summary = events.find(
    (event) =>
      event.type === 'compaction/summary' &&
      (event.body as { compactionId: number }).compactionId === start!.seq,
  );
  return {
    turnsBefore: events.filter((event) => event.type === 'turn/start' && event.seq < start!.seq)
      .length,
    summary: (summary?.body as { summary?: unknown } | undefined)?.summary,
    turns: events.filter((event) => event.type === 'turn/start').length,
  };
}

/** The messages (but the runtime context) of every model request of a stored session, rebuilt. */
async function requestMessages(dir: string, id: string): Promise<(readonly Message[])[]> {
  const session = await Session.open({
    store: createJsonlStore({ dir, fsync: 'never' }),
    id,
    readOnly: true,
  });
  const messages: (readonly Message[])[] = [];
  try {
    // The runtime context names the workspace and the tools loaded, which differ on purpose.
    const onRequest = (request: { messages: readonly Message[] }): void => {
      messages.push(
        request.messages.filter(
          (message) => !(message.role === 'user' && message.source === 'runtime-context'),
        ),
      );
    };
    expect(replay(session, { onRequest }).ok).toBe(true);
  } finally {
    await session.close();
  }
  return messages;
}

describe('rerun of an interactive session with /compact between two tasks', () => {
  it('issues the manual compaction again between the same turns with the recorded summary', async () => {
    const server = await createScriptedModelServer({
      replies: [
        { toolCalls: [{ id: 'call_1', name: 'read', arguments: '{"path":"src/add.js"}' }] },
        { text: 'The adder subtracts instead of adding.' },
        { text: 'Checkpoint: the user asked about src/add.js; it subtracts instead of adding.' },
        { text: 'Second answer, after the checkpoint.' },
      ],
    });
    const workspace = exampleWorkspace('spine-rerun-compact-');
    const { env, sessionDir } = isolatedEnv();
    const command = spineCommand(BIN, env, [
      ...modelArgs(server.baseUrl),
      '--approval',
      'never-ask',
    ]);
    const terminal = new TmuxTerminal(command, { cwd: workspace });
    try {
      await terminal.waitFor(/›$/);
      terminal.type('look at the adder');
      await terminal.waitFor(/The adder subtracts instead of adding\.[\s\S]*context [^›]*\n›$/);
      terminal.type('/compact');
      await terminal.waitFor(/compaction compacted/);
      terminal.type('what now?');
      await terminal.waitFor(/Second answer, after the checkpoint\.[\s\S]*context [^›]*\n›$/);
      terminal.type('/quit');
      await terminal.waitFor(/EXITED:0/);
    } finally {
      terminal.close();
      await server.close();
    }
    // The summary was asked of the model between the two tasks.
    expect(server.requests).toHaveLength(4);
    const [file] = readdirSync(sessionDir).filter((name) => name.endsWith('.jsonl'));
    const id = file!.replace(/\.jsonl$/, '');
    const recorded = manualCompaction(readEvents(join(sessionDir, file!)));
    expect(recorded).toEqual({
      turnsBefore: 1,
      turns: 2,
      summary: expect.stringContaining('Checkpoint: the user asked about src/add.js'),
    });

    const outDir = tempFolder('spine-rerun-compact-out-');
    const rerun = await runCli(
      [
        'rerun',
        id,
        '--json',
        '--cwd',
        exampleWorkspace('spine-rerun-compact-'),
        '--out-dir',
        outDir,
      ],
      { env },
    );
    expect(rerun.code, rerun.stderr).toBe(0);
    const summary = JSON.parse(rerun.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(summary).toMatchObject({
      ok: true,
      turns: 2,
      modelOutputs: { recorded: 3, replayed: 3 },
      toolResults: { recorded: 1, rerun: 1, same: 1 },
      compactions: { recorded: 1, rerun: 1, manual: 1 },
      requestsVerified: { ok: true, count: 3 },
    });
    const rerunEvents = readEvents(join(outDir, `${summary.rerunSessionId as string}.jsonl`));
    expect(manualCompaction(rerunEvents)).toEqual(recorded);
    // After the checkpoint the rerun's request carries the same context as the recorded one.
    const before = await requestMessages(sessionDir, id);
    const after = await requestMessages(outDir, summary.rerunSessionId as string);
    expect(after).toHaveLength(3);
    expect(after.at(-1)).toEqual(before.at(-1));
    expect(JSON.stringify(after.at(-1))).toContain('Checkpoint: the user asked about src/add.js');
    // The tool call and its result were folded into the checkpoint, in both.
    expect(after.at(-1)!.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(after.at(-1)![0]).toMatchObject({ source: 'compact-checkpoint' });

    // A recording whose compaction the rerun does not repeat (here: relabelled automatic, which
    // the small context never triggers) is a mismatch, exit 5, with a line saying so.
    const tampered = readEvents(join(sessionDir, file!)).map((event) =>
      event.type === 'session/header'
        ? { ...event, body: { ...(event.body as object), sessionId: 'tampered' } }
        : event.type === 'compaction/start'
          ? { ...event, body: { ...(event.body as object), reason: 'pressure' } }
          : event,
    );
    writeFileSync(
      join(sessionDir, 'tampered.jsonl'),
      `${tampered.map((event) => JSON.stringify(event)).join('\n')}\n`,
    );
    const mismatch = await runCli(
      ['rerun', 'tampered', '--cwd', exampleWorkspace('spine-rerun-compact-')],
      { env },
    );
    expect(mismatch.code, mismatch.stderr).toBe(5);
    expect(mismatch.stdout).toContain(
      'compactions completed: 0/1 (0 manual issued again) MISMATCH: the rerun completed 0, the recording 1',
    );
    expect(mismatch.stdout).toContain('rerun differs from the recording');
  }, 90_000);
});
