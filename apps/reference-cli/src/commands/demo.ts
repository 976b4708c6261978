import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultConfig, readSessionEvents, UsageError } from '@spine/harness';
import { createJsonlStore, Session } from '@spine/session-log';
import { styleFor } from '@spine/tui';
import { EXIT_CODES } from '../exit-codes.js';
import { rerunSession } from './rerun.js';

/** The recorded example session shipped in `examples/sessions/`. */
export const DEMO_SESSION_ID = 'example-fix-add';

/**
 * `spine demo`: the main job on a fresh machine, with no key and no network. Copies the example
 * workspace to a temporary folder, reruns the recorded session there (recorded model outputs,
 * real tools, real sandbox), then verifies the recorded and the new session by replay.
 */
export async function demoCommand(flags: { keep?: boolean; json?: boolean }): Promise<number> {
  const examples = findExamplesDir();
  if (!examples)
    throw new UsageError({
      message: 'the examples folder is missing from this installation; reinstall @spine/cli',
    });
  const style = styleFor(process.stdout);
  const root = mkdtempSync(join(tmpdir(), 'spine-demo-'));
  const workspace = join(root, 'workspace');
  const sessionDir = join(root, 'sessions');
  cpSync(join(examples, 'workspace'), workspace, { recursive: true });
  cpSync(join(examples, 'sessions'), sessionDir, { recursive: true });
  const say = (text: string): void => {
    if (!flags.json) process.stdout.write(`${text}\n`);
  };
  try {
    say(
      style.bold(
        `1. rerun the recorded session ${DEMO_SESSION_ID} in a fresh copy of the example workspace`,
      ),
    );
    say(
      style.dim(
        `   (spine rerun ${DEMO_SESSION_ID} --session-dir ${sessionDir} --cwd ${workspace})`,
      ),
    );
    const config = {
      ...defaultConfig(process.env),
      sessionDir,
      approval: 'never-ask' as const,
      lsp: { enabled: false },
      web: { enabled: false },
      instructions: { enabled: true, userFile: join(root, 'no-user-instructions.md') },
    };
    const store = createJsonlStore({ dir: sessionDir, fsync: 'never' });
    const recorded = await readSessionEvents(store, DEMO_SESSION_ID, sessionDir);
    const summary = await rerunSession(recorded, {
      cwd: workspace,
      config,
      json: Boolean(flags.json),
      outDir: sessionDir,
    });

    say('');
    say(style.bold('2. replay both sessions from their logs and verify every request hash'));
    const { replay } = await import('@spine/agent-loop');
    const verdicts: Record<string, { ok: boolean; requests: number }> = {};
    for (const id of [DEMO_SESSION_ID, summary.rerunSessionId]) {
      // The command is only worth printing when the folder outlives the demo.
      if (flags.keep)
        say(style.dim(`   (spine replay ${id} --verify --session-dir ${sessionDir})`));
      const session = await Session.open({ store, id, readOnly: true });
      const report = replay(session);
      await session.close();
      verdicts[id] = { ok: report.ok, requests: report.requests.length };
      say(
        `   ${id}: ${report.requests.length} requests ${report.ok ? style.green('verified') : style.red(`MISMATCH at seq ${report.firstMismatch?.seq}`)}`,
      );
    }
    const ok = summary.ok && Object.values(verdicts).every((verdict) => verdict.ok);
    say('');
    say(
      ok
        ? style.green(
            'demo passed: the agent fixed the example again, and every request was rebuilt from the log byte for byte.',
          )
        : style.red('demo failed: see the differences above'),
    );
    say(
      style.dim(
        flags.keep
          ? `kept ${root}`
          : 'the demo folder is removed; run spine demo --keep to keep its sessions and replay them yourself',
      ),
    );
    if (flags.json)
      process.stdout.write(
        `${JSON.stringify({ ok, rerun: summary, replay: verdicts, root: flags.keep ? root : undefined })}\n`,
      );
    return ok ? EXIT_CODES.ok : EXIT_CODES.mismatch;
  } finally {
    if (!flags.keep) rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The bundled `examples/` folder (workspace and recorded sessions), found from this module's
 * location so it works from sources, from `dist/` and from an installed package.
 */
export function findExamplesDir(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth++) {
    const candidate = join(dir, 'examples');
    if (existsSync(join(candidate, 'workspace')) && existsSync(join(candidate, 'sessions')))
      return candidate;
    dir = dirname(dir);
  }
  return undefined;
}
