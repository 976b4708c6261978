// The slash commands an ACP session runs itself, as the REPL does: `/compact`, `/title`, `/fork`
// (a new session sharing this one's history, for the client to load) and `/rewind` (the
// workspace put back to a checkpoint, recorded as `workspace/restored`). A client cannot be asked
// to pick from a list, so `/rewind` takes its point and flags on the line; whether to overwrite
// files changed outside Spine it asks with `session/request_permission` (or `--yes` on the line).
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import {
  type AgentSession,
  currentSessionTitle,
  newSessionId,
  personTitle,
  recordSessionTitle,
} from '@spine/harness';
import { visibleText } from '@spine/protocol';

type RewindOutcome = Awaited<ReturnType<NonNullable<AgentSession['checkpoints']>['rewind']>>;

/** Slash commands this agent runs itself (advertised with `available_commands_update`). */
export const COMMANDS = [
  { name: 'compact', description: 'Fold old history into a checkpoint now', hint: 'focus' },
  { name: 'title', description: 'Set the title of this session', hint: 'text' },
  {
    name: 'fork',
    description: 'Fork this session at a log seq (default: now) into a new session to load',
    hint: 'seq',
  },
  {
    name: 'rewind',
    description:
      'Put the workspace back to before a turn (3), a step (3.2) or a seq (@120); --dry-run shows what would change, changes made outside Spine are overwritten only if you allow it (or with --yes)',
    hint: 'turn [--dry-run] [--yes]',
  },
] as const;

/** A command's name. */
export type CommandName = (typeof COMMANDS)[number]['name'];

/** The command and its argument when `text` is one of {@link COMMANDS}, else undefined. */
export function parseCommand(text: string): { name: CommandName; argument: string } | undefined {
  const match = /^\/(compact|title|fork|rewind)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return match ? { name: match[1] as CommandName, argument: match[2]?.trim() ?? '' } : undefined;
}

/** The `available_commands_update` sent once a session is open. */
export function commandsUpdate(): SessionUpdate {
  return {
    sessionUpdate: 'available_commands_update',
    availableCommands: COMMANDS.map((command) => ({
      name: command.name,
      description: command.description,
      input: { hint: command.hint },
    })),
  };
}

/** What a command tells the client: text, and machine-readable facts for `_meta`. */
export interface CommandReply {
  text: string;
  meta?: Record<string, unknown>;
}

/** What a command may ask the client. */
export interface CommandOptions {
  /**
   * Asks whether `/rewind` may overwrite these files changed outside Spine (without `--yes`);
   * absent, such a rewind is refused.
   */
  confirmRewind?: (paths: readonly string[]) => Promise<boolean>;
}

/** Runs `name` with `argument` on the session; resolves with what to tell the client. */
export async function runCommand(
  active: AgentSession,
  name: CommandName,
  argument: string,
  options: CommandOptions = {},
): Promise<CommandReply | undefined> {
  switch (name) {
    case 'compact': {
      const outcome = await active.agent.compact(argument ? { focus: argument } : {});
      return {
        text: `compaction ${outcome.status}${outcome.message ? `: ${outcome.message}` : ''}`,
      };
    }
    case 'title': {
      const title = personTitle(argument);
      if (!title) return { text: 'usage: /title <text>' };
      recordSessionTitle(active.session, active.config.sessionDir, title, 'person');
      return undefined;
    }
    case 'fork':
      return fork(active, argument);
    case 'rewind':
      return rewind(active, argument, options.confirmRewind);
  }
}

async function fork(active: AgentSession, argument: string): Promise<CommandReply> {
  const { session } = active;
  const at = argument ? Number(argument) : session.lastSeq;
  if (!Number.isInteger(at) || at < 1 || at > session.lastSeq)
    return { text: `usage: /fork [seq], seq between 1 and ${session.lastSeq}` };
  await session.flush();
  const forked = await session.fork(at, { id: newSessionId() });
  // The fork carries the title the session has now.
  const title = currentSessionTitle(active.config.sessionDir, session);
  if (title) recordSessionTitle(forked, active.config.sessionDir, title, 'auto');
  await forked.close();
  return {
    text: `forked ${session.id} at seq ${at} into ${forked.id}; open it with session/load (session/list lists it)`,
    meta: { spine: { forkedSessionId: forked.id, atSeq: at } },
  };
}

async function rewind(
  active: AgentSession,
  argument: string,
  confirmRewind: CommandOptions['confirmRewind'],
): Promise<CommandReply> {
  if (!active.checkpoints)
    return { text: 'checkpoints are off (rewind.checkpoints is false): nothing to rewind to' };
  const words = argument.split(/\s+/).filter(Boolean);
  const point = words.find((word) => !word.startsWith('--'));
  if (!point) return { text: 'usage: /rewind <turn>|<turn.step>|@<seq> [--dry-run] [--yes]' };
  const outcome = await active.checkpoints.rewind({
    session: active.session,
    to: point,
    reason: 'rewind',
    ...(words.includes('--dry-run') ? { dryRun: true } : {}),
    // `--yes` overwrites without asking; otherwise the client is asked, as the CLI asks a person.
    ...(words.includes('--yes')
      ? { confirm: async () => true }
      : confirmRewind
        ? { confirm: confirmRewind }
        : {}),
  });
  return { text: rewindText(outcome), meta: { spine: { rewind: outcome.status } } };
}

/** What a rewind did, in a sentence and the files it changed. */
function rewindText(outcome: RewindOutcome): string {
  const files = (changes: ReadonlyArray<{ kind: string; path: string }>) =>
    changes.map((change) => `\n  ${change.kind} ${visibleText(change.path)}`).join('');
  switch (outcome.status) {
    case 'not-found':
      return `rewind: ${outcome.message}`;
    case 'nothing-to-do':
      return 'rewind: the workspace already matches that point; nothing to restore';
    case 'refused':
      return `rewind refused: ${outcome.conflicts.length} file(s) changed outside Spine would be overwritten: ${outcome.conflicts.map((path) => visibleText(path)).join(', ')}; they were kept (repeat with --yes to overwrite them)`;
    case 'dry-run':
      return `rewind (dry run) to seq ${outcome.checkpoint.seq} would change ${outcome.changes.length} file(s):${files(outcome.changes)}`;
    case 'restored':
      return `rewound the workspace to seq ${outcome.checkpoint.seq}: ${outcome.changes.length} file(s)${files(outcome.changes)}`;
  }
}
