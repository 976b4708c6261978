// Workspace checkpoints for an agent session: the agent loop's `beforeTools` hook records one
// before each step that may change files, and a full one after each turn that did, so a rewind
// and the crash check can tell Spine's changes from changes made outside it.

import type {
  CheckpointRecorder,
  CheckpointStore,
  RewindOptions,
  RewindOutcome,
} from '@spine/checkpoints';
import type { SandboxMode } from '@spine/protocol';
import type { SpineConfig } from '../config/schema.js';
import { checkpointStoreFor, classifyCall } from './checkpoint-store.js';

/** What the session wiring gets: the store and the agent loop's two hooks. */
export interface WiredCheckpoints {
  /** The session's checkpoint store (`spine rewind` reads it). */
  store: CheckpointStore;
  /** Takes a checkpoint before tools that may change files run. */
  beforeTools: CheckpointRecorder['beforeTools'];
  /** Records the files the turn's steps changed before the turn ends. */
  beforeTurnEnd: CheckpointRecorder['afterSteps'];
  /**
   * Puts the workspace back to a checkpoint of the session (`rewindWorkspace` of
   * `@spine/checkpoints` on this store); `to` is a turn (`3`), a step (`3.2`) or a seq (`@120`).
   * A `to` that parses as none of them is a `not-found` outcome.
   */
  rewind(options: Omit<RewindOptions, 'store' | 'to'> & { to: string }): Promise<RewindOutcome>;
}

/**
 * Wires checkpoints into a session, or returns undefined when `rewind.checkpoints` is off.
 * A checkpoint that fails is reported through `warn` and the step goes on: losing the ability to
 * rewind one step must not stop the work.
 */
export async function wireCheckpoints(options: {
  config: SpineConfig;
  cwd: string;
  sandbox: () => SandboxMode;
  warn: (message: string) => void;
}): Promise<WiredCheckpoints | undefined> {
  const { config, warn } = options;
  if (!config.rewind.checkpoints) return undefined;
  const { createCheckpointRecorder } = await import('@spine/checkpoints');
  const store = await checkpointStoreFor(config, options.cwd);
  // One recorder per session: each records through its session's own index of the store.
  const recorders = new Map<string, Promise<CheckpointRecorder>>();
  const recorderFor = (session: string) => {
    let recorder = recorders.get(session);
    if (!recorder) {
      recorder = checkpointStoreFor(config, options.cwd, session).then((sessionStore) =>
        createCheckpointRecorder({
          store: sessionStore,
          classify: (call) => classifyCall(call, options.sandbox()),
        }),
      );
      recorders.set(session, recorder);
    }
    return recorder;
  };
  return {
    store,
    async rewind({ to, ...options }) {
      const { parseRewindTarget, rewindWorkspace } = await import('@spine/checkpoints');
      const target = parseRewindTarget(to);
      if (!target)
        return {
          status: 'not-found',
          message: `expected a turn (3), a step (3.2) or a log seq (@120), got "${to}"`,
        };
      return rewindWorkspace({ ...options, store, to: target });
    },
    async beforeTools(input) {
      try {
        await (await recorderFor(input.session.id)).beforeTools(input);
      } catch (error) {
        warn(
          `workspace checkpoint failed, this step cannot be rewound: ${(error as Error).message}`,
        );
      }
    },
    async beforeTurnEnd(input) {
      try {
        await (await recorderFor(input.session.id)).afterSteps(input);
      } catch (error) {
        warn(`workspace checkpoint after the turn failed: ${(error as Error).message}`);
      }
    },
  };
}
