// SIGKILL at random moments during a real write, edit and shell command (50 runs): after the
// crash, the CLI's recovery check answers the interrupted call, and every verdict ("applied",
// "not applied", "changed by something else", the list of files a command changed) must match
// what the test observes on disk. The child runs the real tool runtime, bundled once with esbuild
// so each run starts in milliseconds.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { createCheckpointRecorder, createGitCheckpointStore } from '@spine/checkpoints';
import { answerInterruptedCalls, checkpointDirFor, defaultConfig } from '@spine/harness';
import type { ToolResultBody } from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_DIR, tempFolder } from './run-cli.js';

const RUNS = 50;
const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');
let child = '';

beforeAll(async () => {
  // Inside the repository, so the bundle's imports of installed packages resolve.
  const folder = join(APP_DIR, '.spine-tmp');
  await fs.mkdir(folder, { recursive: true });
  child = join(folder, `crash-verdict-child-${process.pid}.mjs`);
  await build({
    entryPoints: [join(APP_DIR, 'test', 'crash-verdict-child.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: child,
    packages: 'external',
    alias: {
      '@spine/protocol': join(APP_DIR, '../../packages/protocol/src/index.ts'),
      '@spine/tool-runtime': join(APP_DIR, '../../packages/tool-runtime/src/index.ts'),
    },
    logLevel: 'error',
  });
}, 120_000);
afterAll(() => fs.rm(child, { force: true }));

/** Runs the child, kills it `delayMs` after it is ready (Infinity: lets it finish), waits for its exit. */
function runAndKill(args: string[], delayMs: number): Promise<string> {
  return new Promise((resolve) => {
    // Its own process group: the crash kills the whole tree (node and the shell it started).
    const process_ = spawn(process.execPath, [child, ...args], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let scheduled = false;
    process_.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('ready') && !scheduled && Number.isFinite(delayMs)) {
        scheduled = true;
        setTimeout(() => {
          try {
            process.kill(-(process_.pid as number), 'SIGKILL');
          } catch {
            // Already gone.
          }
        }, delayMs);
      }
    });
    process_.on('close', () => resolve(output));
  });
}

async function snapshot(workspace: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const name of await fs.readdir(workspace)) {
    if (name === '.git') continue;
    files.set(name, sha(await fs.readFile(join(workspace, name))));
  }
  return files;
}

/** Resolves once two snapshots 150 ms apart are equal (at most 10 s). */
async function settled(workspace: string): Promise<void> {
  let last = JSON.stringify([...(await snapshot(workspace))]);
  for (let tries = 0; tries < 66; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 150));
    const now = JSON.stringify([...(await snapshot(workspace))]);
    if (now === last) return;
    last = now;
  }
}

describe('verified outcomes after SIGKILL', () => {
  it(`match the disk in ${RUNS} runs of write, edit and bash`, async () => {
    const root = tempFolder('spine-crash-verdicts-');
    const workspace = join(root, 'ws');
    await fs.mkdir(workspace);
    const config = { ...defaultConfig(process.env), sessionDir: join(root, 'sessions') };
    const sessions = createJsonlStore({ dir: config.sessionDir, fsync: 'never' });
    const store = createGitCheckpointStore({
      workspace,
      directory: checkpointDirFor(config, workspace),
    });
    const recorder = createCheckpointRecorder({
      store,
      classify: (call) =>
        call.name === 'bash' ? 'workspace' : { paths: [JSON.parse(call.arguments).path] },
    });
    const seen = new Map<string, number>();
    for (let run = 0; run < RUNS; run++) {
      const tool = (['write', 'edit', 'bash'] as const)[run % 3] as 'write' | 'edit' | 'bash';
      const before = `${randomBytes(8).toString('hex')} MARK\n${'x'.repeat(400_000)}\n`;
      await fs.writeFile(join(workspace, 'big.txt'), before);
      const args =
        tool === 'write'
          ? { path: 'big.txt', content: `${'y'.repeat(400_000)} run ${run}\n` }
          : tool === 'edit'
            ? { path: 'big.txt', edits: [{ oldText: 'MARK', newText: `EDITED ${run}` }] }
            : { command: `for i in 1 2 3 4 5; do echo ${run} > s$i.txt; sleep 0.004; done` };
      const session = await Session.create({ store: sessions, cwd: workspace });
      const at = { turn: 1, step: 2 };
      session.append('turn/start', {}, { turn: 1, step: 0 });
      session.append(
        'user/message',
        { content: 'go', source: 'user' },
        { turn: 1, step: 0, surfaceOp: { op: 'append' } },
      );
      // A finished step first: the check reads the log from the interrupted call's step on.
      const first = { turn: 1, step: 1 };
      const look = { type: 'tool-call' as const, id: `r${run}`, name: 'read', arguments: '{}' };
      session.append('step/start', {}, first);
      session.append(
        'assistant/message',
        { content: [look], finishReason: 'tool-calls' },
        { ...first, surfaceOp: { op: 'append' } },
      );
      session.append(
        'tool/started',
        { toolCallId: look.id, toolName: 'read', arguments: '{}' },
        first,
      );
      session.append(
        'tool/result',
        { toolCallId: look.id, toolName: 'read', content: 'ok', isError: false },
        { ...first, surfaceOp: { op: 'append' } },
      );
      session.append('step/start', {}, at);
      const callPart = {
        type: 'tool-call' as const,
        id: `c${run}`,
        name: tool,
        arguments: JSON.stringify(args),
      };
      session.append(
        'assistant/message',
        { content: [callPart], finishReason: 'tool-calls' },
        { ...at, surfaceOp: { op: 'append' } },
      );
      await recorder.beforeTools({ session, turn: 1, step: 2, calls: [callPart] });
      session.append(
        'tool/started',
        { toolCallId: callPart.id, toolName: tool, arguments: callPart.arguments },
        at,
      );
      await session.close();
      const pre = await snapshot(workspace);

      const argsFile = join(root, 'args.json');
      await fs.writeFile(argsFile, callPart.arguments);
      const delay = [0, 2, 5, 10, 20, 40, 80, Number.POSITIVE_INFINITY][run % 8] as number;
      const output = await runAndKill([tool, workspace, argsFile], delay);
      // The child got as far as the tool call (and, left alone, finished it).
      expect(output, `run ${run}`).toMatch(/^ready\n/);
      if (!Number.isFinite(delay)) expect(output, `run ${run}`).toContain('done ok');
      // The shell command runs in its own process group, so it may outlive the crash: wait until
      // it has finished changing files (as a person reopening the session later would see it).
      if (tool === 'bash') await settled(workspace);
      const someoneElse = tool !== 'bash' && run % 5 === 4;
      if (someoneElse) await fs.writeFile(join(workspace, 'big.txt'), 'a person was here\n');

      const answered = await answerInterruptedCalls({
        store: sessions,
        id: session.id,
        config,
        cwd: workspace,
      });
      expect(answered).toBe(1);
      const reopened = await Session.open({ store: sessions, id: session.id, readOnly: true });
      const result = reopened
        .events()
        .find(
          (event) =>
            event.type === 'tool/result' &&
            (event.body as ToolResultBody).toolCallId === callPart.id,
        )?.body as ToolResultBody;
      await reopened.close();
      const verdict = result.meta?.verdict as string;
      seen.set(verdict, (seen.get(verdict) ?? 0) + 1);
      const now = await snapshot(workspace);
      if (tool === 'bash') {
        const changed = [...now.keys()].filter((name) => now.get(name) !== pre.get(name)).sort();
        expect(verdict).toBe('files-changed');
        const listed = ((result.meta?.changedFiles ?? []) as string[])
          .map((entry) => entry.split(' ')[1])
          .sort();
        expect(listed, `run ${run}`).toEqual(changed);
        await Promise.all(changed.map((name) => fs.rm(join(workspace, name))));
        continue;
      }
      const current = now.get('big.txt');
      const intended =
        tool === 'write'
          ? sha(args.content as string)
          : sha(before.replace('MARK', `EDITED ${run}`));
      const expected =
        current === intended
          ? 'applied'
          : current === sha(before)
            ? 'not-applied'
            : 'changed-elsewhere';
      expect(verdict, `run ${run} (${tool})`).toBe(expected);
      expect(result.content).toMatch(/^verified after the process stopped/);
    }
    console.log(`verdicts over ${RUNS} runs: ${JSON.stringify(Object.fromEntries(seen))}`);
    expect(seen.get('changed-elsewhere') ?? 0).toBeGreaterThan(0);
    expect(seen.get('applied') ?? 0).toBeGreaterThan(0);
    expect(seen.get('not-applied') ?? 0).toBeGreaterThan(0);
  }, 240_000);
});
