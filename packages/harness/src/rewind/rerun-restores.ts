// A rerun of a session that was rewound between turns puts the workspace back at the same points
// (each recorded `workspace/restored` before the turn that followed it), so the tools of later
// turns see what they saw when the session was recorded.

import type { SessionEvent, WorkspaceRestoredBody } from '@spine/protocol';
import type { SpineConfig } from '../config/schema.js';
import { checkpointStoreFor } from './checkpoint-store.js';

/** The recorded restores that happened before `turn` started and after the turn before it. */
export function restoresBefore(
  recorded: readonly SessionEvent[],
  turn: number,
): WorkspaceRestoredBody[] {
  let from = 0;
  let to: number | undefined;
  for (const event of recorded) {
    if (event.type === 'turn/start' && event.turn === turn) {
      to = event.seq;
      break;
    }
    if (event.type === 'turn/start') from = event.seq;
  }
  if (to === undefined) return [];
  return recorded
    .filter((event) => event.type === 'workspace/restored' && event.seq > from && event.seq < to)
    .map((event) => event.body as WorkspaceRestoredBody);
}

/**
 * The rerun's `beforeTurn` hook: applies the recorded restores before each turn to the rerun's
 * workspace. A snapshot the workspace's store does not hold (a rerun in another folder) is
 * reported through `warn` and skipped; the tool results then show the difference.
 */
export function createRerunRestores(options: {
  recorded: readonly SessionEvent[];
  config: Pick<SpineConfig, 'sessionDir' | 'rewind'>;
  cwd: string;
  warn: (message: string) => void;
}): (input: { turn: number }) => Promise<void> {
  return async ({ turn }) => {
    const restores = restoresBefore(options.recorded, turn);
    if (restores.length === 0) return;
    const store = await checkpointStoreFor(options.config, options.cwd);
    for (const restore of restores) {
      try {
        await store.restore(restore.target);
      } catch (error) {
        options.warn(
          `could not repeat the recorded rewind before turn ${turn}: ${(error as Error).message}`,
        );
      }
    }
  };
}
