// Workspace checkpoints for an agent session: the agent loop's `beforeTools` hook records one
// before each step that may change files, and a full one after each turn that did, so a rewind
// and the crash check can tell Spine's changes from changes made outside it.

import type { CheckpointRecorder, CheckpointStore } from '@spine/checkpoints';
import type { SandboxMode, SessionLog } from '@spine/protocol';
import type { SpineConfig } from '../config/schema.js';
import { checkpointStoreFor, classifyCall } from './checkpoint-store.js';

/** What the session wiring gets: the hook and a way to wait for pending checkpoints. */
export interface WiredCheckpoints {
  store: CheckpointStore;
  beforeTools: CheckpointRecorder['beforeTools'];
  /** Resolves when the turn-end checkpoints started so far are written. */
  settled(): Promise<void>;
  /** Stops watching the session. */
  detach(): void;
}

/**
 * Wires checkpoints into a session, or returns undefined when `rewind.checkpoints` is off.
 * A checkpoint that fails is reported through `warn` and the step goes on: losing the ability to
 * rewind one step must not stop the work.
 */
export async function wireCheckpoints(options: {
  config: SpineConfig;
  cwd: string;
  session: SessionLog;
  sandbox: () => SandboxMode;
  warn: (message: string) => void;
}): Promise<WiredCheckpoints | undefined> {
  const { config, session, warn } = options;
  if (!config.rewind.checkpoints) return undefined;
  const { createCheckpointRecorder } = await import('@spine/checkpoints');
  const store = await checkpointStoreFor(config, options.cwd);
  const recorder = createCheckpointRecorder({
    store,
    classify: (call) => classifyCall(call, options.sandbox()),
  });
  const detach = recorder.watch(session, (error) =>
    warn(`workspace checkpoint after the turn failed: ${(error as Error).message}`),
  );
  return {
    store,
    async beforeTools(input) {
      try {
        await recorder.beforeTools(input);
      } catch (error) {
        warn(
          `workspace checkpoint failed, this step cannot be rewound: ${(error as Error).message}`,
        );
      }
    },
    settled: () => recorder.settled(),
    detach,
  };
}
