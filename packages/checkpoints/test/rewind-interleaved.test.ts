// Rewind with other hands in the workspace: a person's edits and a second session's steps,
// interleaved at random with this session's agent steps (file tools and shell commands). A rewind
// that is not confirmed never changes a file this session's agent did not write last; a rewind
// of a rewind puts back what the first one undid.
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionLog, ToolCallPart } from '@spine/protocol';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type CheckpointRecorder,
  createCheckpointRecorder,
  createGitCheckpointStore,
  listCheckpoints,
  rewindWorkspace,
} from '../src/index.js';
import { eventLog } from './event-log.js';

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await fs.rm(root, { recursive: true, force: true });
});

const PATHS = ['a.txt', 'b.txt', 'dir/c.txt'];
type Actor = 'agent' | 'person' | 'other';
type Action =
  | { by: Actor; op: 'write'; path: string; text: string; shell: boolean }
  | { by: Actor; op: 'delete'; path: string; shell: boolean }
  | { by: 'agent'; op: 'turn-end' };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    by: fc.constantFrom<Actor>('agent', 'person', 'other'),
    op: fc.constant('write' as const),
    path: fc.constantFrom(...PATHS),
    text: fc.string({ maxLength: 6 }),
    shell: fc.boolean(),
  }),
  fc.record({
    by: fc.constantFrom<Actor>('agent', 'person', 'other'),
    op: fc.constant('delete' as const),
    path: fc.constantFrom(...PATHS),
    shell: fc.boolean(),
  }),
  fc.constant({ by: 'agent' as const, op: 'turn-end' as const }),
);

interface Agent {
  session: SessionLog;
  recorder: CheckpointRecorder;
  turn: number;
  step: number;
}

async function bench() {
  const root = await fs.mkdtemp(join(tmpdir(), 'spine-interleaved-'));
  roots.push(root);
  const workspace = join(root, 'ws');
  await fs.mkdir(join(workspace, 'dir'), { recursive: true });
  const agent = (id: string): Agent => {
    const store = createGitCheckpointStore({
      workspace,
      directory: join(root, 'store'),
      session: id,
    });
    const classify = (call: ToolCallPart) =>
      call.name === 'bash' ? ('workspace' as const) : { paths: [JSON.parse(call.arguments).path] };
    const recorder = createCheckpointRecorder({ store, classify });
    return { session: eventLog(id), recorder, turn: 1, step: 0 };
  };
  return { root, workspace, a: agent('A'), b: agent('B') };
}

/** One agent step: the checkpoint before its tool, the tool's change, the step's end. */
async function step(agent: Agent, change: Extract<Action, { path: string }>, workspace: string) {
  agent.step += 1;
  const at = { turn: agent.turn, step: agent.step };
  const call: ToolCallPart = {
    type: 'tool-call',
    id: `call-${agent.turn}-${agent.step}`,
    name: change.shell ? 'bash' : change.op === 'write' ? 'write' : 'delete',
    arguments: JSON.stringify({ path: change.path }),
  } as ToolCallPart;
  agent.session.append('step/start', {}, at);
  await agent.recorder.beforeTools({ session: agent.session, ...at, calls: [call] });
  await apply(change, workspace);
  agent.session.append('step/end', { finishReason: 'tool-calls', toolCalls: 1 }, at);
  // The model answers before the next step: the snapshot of what this step left is done by then.
  await agent.recorder.idle();
}

async function apply(change: Extract<Action, { path: string }>, workspace: string) {
  const path = join(workspace, change.path);
  if (change.op === 'write') await fs.writeFile(path, change.text);
  else await fs.rm(path, { force: true });
}

async function turnEnd(agent: Agent) {
  await agent.recorder.afterSteps({ session: agent.session, turn: agent.turn, step: agent.step });
  agent.turn += 1;
  agent.step = 0;
}

async function contents(workspace: string): Promise<Record<string, string | null>> {
  const state: Record<string, string | null> = {};
  for (const path of PATHS)
    state[path] = await fs.readFile(join(workspace, path), 'utf8').catch(() => null);
  return state;
}

describe('rewind with a person and another session in the workspace', () => {
  it('never changes, unconfirmed, a file this session did not write last', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(action, { minLength: 2, maxLength: 6 }),
        fc.nat(),
        async (actions, pick) => {
          const { workspace, a, b } = await bench();
          const lastWriter = new Map<string, Actor>();
          for (const item of actions) {
            if (item.op === 'turn-end') await turnEnd(a);
            else if (item.by === 'agent') await step(a, item, workspace);
            else if (item.by === 'other') await step(b, item, workspace);
            else await apply(item, workspace);
            if (item.op !== 'turn-end') lastWriter.set(item.path, item.by);
          }
          await turnEnd(a);
          const checkpoints = listCheckpoints(a.session.events());
          if (checkpoints.length === 0) return;
          const target = checkpoints[pick % checkpoints.length];
          if (!target) return;
          const before = await contents(workspace);
          let asked: readonly string[] = [];
          const outcome = await rewindWorkspace({
            session: a.session,
            store: createGitCheckpointStore({
              workspace,
              directory: join(workspace, '..', 'store'),
              session: 'A',
            }),
            to: { seq: target.seq },
            confirm: async (paths) => {
              asked = paths;
              return false;
            },
          });
          const after = await contents(workspace);
          for (const path of PATHS) {
            if (lastWriter.get(path) === 'agent' || lastWriter.get(path) === undefined) continue;
            expect({ path, content: after[path], outcome: outcome.status, asked }).toEqual({
              path,
              content: before[path],
              outcome: outcome.status,
              asked,
            });
          }
        },
      ),
      { numRuns: 8 },
    );
  }, 120_000);

  it('asks before undoing an edit by a person or a file of another session made between steps', async () => {
    const { workspace, a, b } = await bench();
    const write = (path: string, text: string, shell = false) =>
      ({ by: 'agent', op: 'write', path, text, shell }) as const;
    await step(a, write('a.txt', 'agent 1'), workspace);
    await fs.writeFile(join(workspace, 'b.txt'), 'a person wrote this');
    await step(b, write('dir/c.txt', 'session B'), workspace);
    await step(a, write('a.txt', 'agent 2', true), workspace);
    await turnEnd(a);
    const store = createGitCheckpointStore({
      workspace,
      directory: join(workspace, '..', 'store'),
      session: 'A',
    });
    let asked: readonly string[] = [];
    const outcome = await rewindWorkspace({
      session: a.session,
      store,
      to: { turn: 1, step: 1 },
      confirm: async (paths) => {
        asked = paths;
        return false;
      },
    });
    expect(outcome.status).toBe('refused');
    expect([...asked].sort()).toEqual(['b.txt', 'dir/c.txt']);
    expect(await contents(workspace)).toEqual({
      'a.txt': 'agent 2',
      'b.txt': 'a person wrote this',
      'dir/c.txt': 'session B',
    });
  });

  it('a rewind of a rewind puts back what the first one undid', async () => {
    const { workspace, a } = await bench();
    await step(
      a,
      { by: 'agent', op: 'write', path: 'a.txt', text: 'one', shell: false },
      workspace,
    );
    await step(a, { by: 'agent', op: 'write', path: 'b.txt', text: 'two', shell: true }, workspace);
    await turnEnd(a);
    const store = createGitCheckpointStore({
      workspace,
      directory: join(workspace, '..', 'store'),
      session: 'A',
    });
    const first = await rewindWorkspace({ session: a.session, store, to: { turn: 1 } });
    expect(first.status).toBe('restored');
    expect(await contents(workspace)).toEqual({ 'a.txt': null, 'b.txt': null, 'dir/c.txt': null });
    const own = listCheckpoints(a.session.events()).at(-1);
    expect(own?.body.reason).toBe('rewind');
    const second = await rewindWorkspace({
      session: a.session,
      store,
      to: { seq: own?.seq ?? 0 },
    });
    expect(second.status).toBe('restored');
    expect(await contents(workspace)).toEqual({
      'a.txt': 'one',
      'b.txt': 'two',
      'dir/c.txt': null,
    });
  });
});
