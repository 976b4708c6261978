// `spine rewind <session> --to <turn|turn.step|@seq> [--dry-run] [--conversation] [--yes]`:
// puts the session's workspace back to a checkpoint, asking before it overwrites files changed
// outside Spine, and optionally forks the conversation at that point (the original log stays).

import { createInterface } from 'node:readline/promises';
import type { RewindOutcome, RewindTarget, UncoveredPath } from '@spine/checkpoints';
import {
  agentProjections,
  checkpointStoreFor,
  historyMode,
  newSessionId,
  SessionInUseError,
  SessionNotFoundError,
  storeFor,
  UsageError,
} from '@spine/harness';
import { SpineError, visibleText } from '@spine/protocol';
import { Session } from '@spine/session-log';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES, type ExitCode } from '../exit-codes.js';

/** Flags of `spine rewind`. */
export interface RewindFlags extends AgentFlags {
  to?: string;
  dryRun?: boolean;
  conversation?: boolean;
  yes?: boolean;
}

/** Asks on the terminal whether to overwrite `paths`; false when stdin is not a terminal. */
export async function askToOverwrite(paths: readonly string[]): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const shown = paths.slice(0, 20).map((path) => `  ${visibleText(path)}`);
  process.stderr.write(
    `These files changed outside Spine since its last checkpoint and would be overwritten:\n${shown.join('\n')}${paths.length > 20 ? `\n  … and ${paths.length - 20} more` : ''}\n`,
  );
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question('Overwrite them? [y/N] ')).trim());
  } finally {
    prompt.close();
  }
}

/**
 * The seq to fork the conversation at for `target`: before its turn, or at its checkpoint. The
 * turn's start is streamed (`turn/start` events only), so a lazily opened session works too.
 */
export async function forkSeq(
  session: Pick<Session, 'readEvents'>,
  target: RewindTarget,
  checkpointSeq: number,
): Promise<number> {
  if ('turn' in target && target.step === undefined) {
    for await (const event of session.readEvents({ fromSeq: 1, types: ['turn/start'] }))
      if (event.turn === target.turn) return event.seq - 1;
  }
  return checkpointSeq;
}

const REASONS: Record<UncoveredPath['reason'], string> = {
  ignored: 'ignored by .gitignore',
  'over-size-cap': 'over the size cap (rewind.maxFileBytes)',
  'nested-repository': 'nested repository: its files are not recorded',
  unreadable: 'could not be read',
};

/** The "rewind cannot restore" lines for `uncovered` (empty when there is none). */
export function uncoveredText(uncovered: readonly UncoveredPath[]): string {
  if (uncovered.length === 0) return '';
  const shown = uncovered
    .slice(0, 20)
    .map((entry) => `  ${visibleText(entry.path)} (${REASONS[entry.reason]})`);
  const more = uncovered.length > 20 ? `\n  … and ${uncovered.length - 20} more` : '';
  return `rewind cannot restore: ${uncovered.length} path(s) are not in its checkpoints and stay as they are:\n${shown.join('\n')}${more}\n`;
}

/** Prints what a rewind did (or would do) and maps it to an exit code. */
export function reportRewind(outcome: RewindOutcome, write: (text: string) => void): ExitCode {
  const list = (changes: ReadonlyArray<{ kind: string; path: string }>) =>
    changes.map((change) => `  ${change.kind.padEnd(8)} ${visibleText(change.path)}`).join('\n');
  switch (outcome.status) {
    case 'not-found':
      write(`rewind: ${outcome.message}\n`);
      return EXIT_CODES.usage;
    case 'nothing-to-do':
      write('rewind: the workspace already matches that point; nothing to restore\n');
      return EXIT_CODES.ok;
    case 'refused':
      write(
        `rewind refused: ${outcome.conflicts.length} file(s) changed outside Spine (by a person or another session) would be overwritten or deleted:\n${outcome.conflicts.map((path) => `  ${visibleText(path)}`).join('\n')}\nReview them, then run again with --yes to overwrite.\n`,
      );
      return EXIT_CODES.usage;
    case 'dry-run':
      write(
        `rewind (dry run) to checkpoint ${outcome.checkpoint.body.id.slice(0, 12)} (seq ${outcome.checkpoint.seq}) would change ${outcome.changes.length} file(s):\n${list(outcome.changes)}\n`,
      );
      if (outcome.conflicts.length > 0)
        write(`changed outside Spine (would ask first): ${outcome.conflicts.join(', ')}\n`);
      if (outcome.patch) write(visibleText(outcome.patch, { keepLineBreaks: true }));
      return EXIT_CODES.ok;
    case 'restored':
      write(
        `rewound the workspace to checkpoint ${outcome.checkpoint.body.id.slice(0, 12)} (seq ${outcome.checkpoint.seq}): ${outcome.changes.length} file(s)\n${list(outcome.changes)}\n`,
      );
      return EXIT_CODES.ok;
  }
}

/** `spine rewind`. */
export async function rewindCommand(id: string, flags: RewindFlags): Promise<number> {
  const { parseRewindTarget, rewindWorkspace } = await import('@spine/checkpoints');
  const target = flags.to === undefined ? undefined : parseRewindTarget(flags.to);
  // Turns count from 1 and seqs from 1 (the header): 0 names no point of any session.
  if (!target || ('seq' in target ? target.seq : target.turn) < 1) {
    throw new UsageError({
      message: `--to expects a turn (3), a step (3.2) or a log seq (@120), got "${flags.to ?? ''}"`,
    });
  }
  const { config } = configForFlags(flags).loaded;
  const store = storeFor(config);
  if (!(await store.exists(id)))
    throw new SessionNotFoundError({ sessionId: id, dir: config.sessionDir });
  // Lazily: rewindWorkspace and forkSeq stream the events they need from the store.
  const session = await openForRewind(store, id, config.sessionDir, flags.dryRun === true);
  try {
    if ('seq' in target && target.seq > session.lastSeq)
      throw new UsageError({
        message: `--to @${target.seq}: session ${id} ends at @${session.lastSeq}`,
      });
    const workspace = session.header.cwd ?? configForFlags(flags).cwd;
    const checkpoints = await checkpointStoreFor(config, workspace, id);
    // The fork is made after the restore (a refused rewind forks nothing); its id is chosen now
    // so the `workspace/restored` event can name it (only a restore writes that event).
    const conversation = flags.conversation && !flags.dryRun ? newSessionId() : undefined;
    const outcome = await rewindWorkspace({
      session,
      store: checkpoints,
      to: target,
      ...(flags.dryRun ? { dryRun: true } : {}),
      confirm: flags.yes ? async () => true : askToOverwrite,
      onUncovered: (uncovered) => process.stdout.write(uncoveredText(uncovered)),
      ...(conversation ? { conversation } : {}),
    });
    if (conversation && outcome.status === 'restored') {
      const at = await forkSeq(session, target, outcome.checkpoint.seq);
      await (await session.fork(at, { store, id: conversation })).close();
    }
    const code = reportRewind(outcome, (text) => process.stdout.write(text));
    if (conversation && outcome.status === 'restored') {
      process.stdout.write(`${conversation}\n`);
      process.stderr.write(
        `conversation forked; continue with: spine resume ${conversation} "…"\n`,
      );
    }
    return code;
  } finally {
    await session.close();
  }
}

/** Opens the session (lazily), naming the process that holds it when it is in use. */
async function openForRewind(
  store: ReturnType<typeof storeFor>,
  id: string,
  dir: string,
  readOnly: boolean,
): Promise<Session> {
  try {
    return await Session.open({
      store,
      id,
      readOnly,
      history: historyMode(),
      projections: await agentProjections(),
    });
  } catch (error) {
    if (!SpineError.isInstance(error) || error.code !== 'SESSION_LOCKED') throw error;
    const pid = (error as { pid?: unknown }).pid;
    throw new SessionInUseError({
      sessionId: id,
      dir,
      ...(typeof pid === 'number' ? { pid } : {}),
      cause: error,
    });
  }
}
