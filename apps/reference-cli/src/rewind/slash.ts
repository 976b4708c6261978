// `/rewind` and `/undo` in the REPL, and what happens to the workspace when a person aborts a
// turn mid-tool (`rewind.onAbort`).

import type { RewindTarget } from '@spine/checkpoints';
import { type AgentSession, newSessionId, preview } from '@spine/harness';
import {
  type SessionEvent,
  type ToolResultBody,
  type UserMessageBody,
  visibleText,
  type WorkspaceCheckpointBody,
} from '@spine/protocol';
import type { Style } from '@spine/tui';
import { forkSeq, reportRewind, uncoveredText } from './command.js';

/** A turn the workspace can be rewound to, as the picker lists it. */
export interface RewindChoice {
  turn: number;
  /** First line of the turn's user input. */
  firstLine: string;
  /** Workspace paths the turn changed (file tools and checkpoint diffs). */
  files: string[];
}

/** The event types {@link rewindChoices} reads. */
const CHOICE_TYPES = ['user/message', 'workspace/checkpoint', 'tool/result'];

/**
 * The turns that recorded a checkpoint, oldest first, with their input and changed files, from
 * a stream of the log (only {@link CHOICE_TYPES} matter): nothing but the choices is held.
 */
export async function rewindChoices(
  events: AsyncIterable<SessionEvent> | Iterable<SessionEvent>,
): Promise<RewindChoice[]> {
  const choices = new Map<number, RewindChoice>();
  const inputs = new Map<number, string>();
  for await (const event of events) {
    if (event.turn === undefined) continue;
    if (event.type === 'user/message' && !inputs.has(event.turn)) {
      const body = event.body as UserMessageBody;
      if (body.source === 'user') inputs.set(event.turn, body.content.split('\n')[0] ?? '');
    }
    if (event.type === 'workspace/checkpoint') {
      const body = event.body as WorkspaceCheckpointBody;
      if (body.reason === 'rewind') continue;
      const seen = choices.get(event.turn);
      // The turn's first checkpoint holds the workspace before it; later ones list its changes.
      if (seen) for (const change of body.changes) add(seen, change.path);
      else if (body.reason === 'step') {
        choices.set(event.turn, {
          turn: event.turn,
          firstLine: inputs.get(event.turn) ?? '',
          files: [],
        });
      }
    }
    if (event.type === 'tool/result') {
      const path = (event.body as ToolResultBody).meta?.sourcePath;
      const choice = choices.get(event.turn);
      if (choice && typeof path === 'string' && (event.body as ToolResultBody).meta?.postHash) {
        add(choice, path);
      }
    }
  }
  return [...choices.values()];
}

function add(choice: RewindChoice, path: string): void {
  if (!choice.files.includes(path)) choice.files.push(path);
}

/** Prints the picker: one line per turn, newest last. */
function printChoices(choices: readonly RewindChoice[], print: (text: string) => void): void {
  if (choices.length === 0) {
    print('no turn of this session changed the workspace; nothing to rewind');
    return;
  }
  print('turns that changed files (rewinding to a turn puts the workspace back to before it):');
  for (const choice of choices) {
    const files = choice.files
      .slice(0, 4)
      .map((path) => visibleText(path))
      .join(', ');
    const more = choice.files.length > 4 ? ` +${choice.files.length - 4}` : '';
    print(
      `  ${String(choice.turn).padStart(3)}  ${preview(visibleText(choice.firstLine), 50).padEnd(50)}  ${files || '(no files listed)'}${more}`,
    );
  }
  print('  /rewind <turn> [--dry-run] [--yes] [--conversation]   (/undo: the last one)');
}

/**
 * Runs `/rewind [turn|turn.step|@seq] [--dry-run] [--yes] [--conversation]` or `/undo [--yes]`.
 * With `--conversation` the session is also forked at that point and the REPL switches to the
 * fork (the original log stays).
 */
export async function runRewindSlash(
  name: '/rewind' | '/undo',
  argument: string,
  active: AgentSession,
  context: { print: (text: string) => void; style: Style },
): Promise<{ switchTo: string; note: string } | undefined> {
  const { print, style } = context;
  if (!active.checkpoints) {
    print(style.red('checkpoints are off (rewind.checkpoints is false): nothing to rewind to'));
    return undefined;
  }
  const { parseRewindTarget, rewindWorkspace } = await import('@spine/checkpoints');
  const words = argument.split(/\s+/).filter(Boolean);
  const yes = words.includes('--yes');
  const dryRun = words.includes('--dry-run');
  const withConversation = words.includes('--conversation') && !dryRun;
  const point = words.find((word) => !word.startsWith('--'));
  // Streamed: a lazily opened session reads its older events from the store, none held.
  const session = active.session;
  const choices = await rewindChoices(session.readEvents({ fromSeq: 1, types: CHOICE_TYPES }));
  let target: RewindTarget | undefined;
  if (name === '/undo') {
    const last = choices.at(-1);
    if (!last) {
      printChoices(choices, print);
      return undefined;
    }
    target = { turn: last.turn };
  } else if (!point) {
    printChoices(choices, print);
    return undefined;
  } else {
    target = parseRewindTarget(point);
    if (!target) {
      print(
        style.red('usage: /rewind <turn>|<turn.step>|@<seq> [--dry-run] [--yes] [--conversation]'),
      );
      return undefined;
    }
  }
  const conversation = withConversation ? newSessionId() : undefined;
  const outcome = await rewindWorkspace({
    session,
    store: active.checkpoints.store,
    to: target,
    reason: name === '/undo' ? 'undo' : 'rewind',
    ...(dryRun ? { dryRun: true } : {}),
    ...(yes ? { confirm: async () => true } : {}),
    ...(conversation ? { conversation } : {}),
    onUncovered: (uncovered) => {
      const text = uncoveredText(uncovered);
      if (text) print(text.replace(/\n$/, ''));
    },
  });
  reportRewind(outcome, (text) => print(text.replace(/\n$/, '')));
  if (outcome.status === 'refused') print(`(repeat with --yes: ${name} ${argument} --yes)`);
  if (!conversation || outcome.status !== 'restored') return undefined;
  await active.session.flush();
  const at = await forkSeq(session, target, outcome.checkpoint.seq);
  await (await active.session.fork(at, { id: conversation })).close();
  return { switchTo: conversation, note: `conversation forked at seq ${at} into ${conversation}` };
}

/**
 * After a turn the person aborted: with `rewind.onAbort: always` the workspace goes back to the
 * checkpoint of the step that was cut off; with `ask` the REPL says how to do it; `never` leaves
 * it as it is.
 */
export async function afterAbortedTurn(
  active: AgentSession,
  turn: number,
  print: (text: string) => void,
): Promise<void> {
  const policy = active.config.rewind.onAbort;
  if (policy === 'never' || !active.checkpoints) return;
  let step: number | undefined;
  const types = ['workspace/checkpoint'];
  for await (const event of active.session.readEvents({ fromSeq: 1, types })) {
    if (event.turn === turn && (event.body as WorkspaceCheckpointBody).reason === 'step')
      step = event.step;
  }
  if (step === undefined) return;
  if (policy === 'ask') {
    print(
      `the aborted step may have changed files; /rewind ${turn}.${step} puts them back (/rewind ${turn}.${step} --dry-run shows how)`,
    );
    return;
  }
  const { rewindWorkspace } = await import('@spine/checkpoints');
  const outcome = await rewindWorkspace({
    session: active.session,
    store: active.checkpoints.store,
    to: { turn, step },
    reason: 'abort',
  });
  reportRewind(outcome, (text) => print(text.replace(/\n$/, '')));
}
