import type { SessionEvent } from '@spine/protocol';
import type { Agent } from './agent.js';
import { type ReplayOptions, type ReplayReport, replay } from './replay.js';
import type { RecordedModel } from './rerun-model.js';
import {
  compareToolResults,
  completedCompactions,
  isBefore,
  type RecordedTurnInput,
  recordedManualCompactions,
  recordedTurnInputs,
  type ToolResultDifference,
} from './rerun-record.js';
import { recordedTitles } from './rerun-titles.js';
import type { TurnResult } from './types.js';

/** Options of {@link rerun}. */
export interface RerunOptions {
  /**
   * The agent to rerun with, on a new session: its model is `model`, its summarizer
   * `createRecordedSummarizer(recorded)`, its `approve` answers from `recordedApprovals(recorded)`.
   */
  agent: Agent;
  /** The recorded model the agent streams from (`createRecordedModel({ events: recorded })`). */
  model: RecordedModel;
  /**
   * Runs one manual compaction exactly as the harness's own `/compact` does; called where the
   * recording ran one (between turns). Without it, recorded manual compactions are not issued
   * (and the compaction counts differ).
   */
  compact?: () => Promise<void>;
  /** Workspace paths, replaced by `<workspace>` before tool results are compared. */
  workspaces?: { recorded?: string; rerun?: string };
  /** Passed to {@link replay} when the rerun's requests are verified. */
  replay?: ReplayOptions;
  /** Called before each recorded turn is run again. */
  onTurn?: (input: RecordedTurnInput) => void;
  /**
   * Awaited before each recorded turn is run again (after recorded manual compactions): the seam
   * for effects the recording had between turns, such as a workspace rewind.
   */
  beforeTurn?: (input: RecordedTurnInput) => Promise<void>;
  /** Called when a turn ends (`reason: 'error'` when it failed). */
  onTurnEnd?: (result: TurnResult, input: RecordedTurnInput) => void;
  /** Called before each recorded manual compaction is issued again. */
  onCompact?: () => void;
  /** Aborts the turns run. */
  signal?: AbortSignal;
}

/** What {@link rerun} found. */
export interface RerunReport {
  /** Recorded turns run again. */
  turns: number;
  /** Recorded model outputs, and how many the rerun consumed. */
  modelOutputs: { recorded: number; replayed: number };
  /** Tool results of the recording and the rerun, and how many are identical. */
  toolResults: { recorded: number; rerun: number; same: number };
  /** The tool results that differ. */
  differences: ToolResultDifference[];
  /** The rerun session's requests, rebuilt from its log and checked by hash. */
  verified: ReplayReport;
  /**
   * Completed compactions (`compaction/end`) in the recording and in the rerun (a difference is a
   * mismatch), and how many recorded manual compactions were issued again.
   */
  compactions: { recorded: number; rerun: number; manual: number };
  /**
   * True when the rerun matches: every tool result identical, every recorded model output used,
   * every request verified, as many completed compactions.
   */
  ok: boolean;
}

/**
 * Reruns a recorded session against the current code and workspace: feeds the recorded user
 * inputs to `options.agent` turn by turn (inputs typed during a turn are queued again at the step
 * they entered, recorded manual compactions are issued again between the same turns), while the
 * agent's model answers with the recorded outputs. Then it compares every tool result with the
 * recorded one and verifies the new session's requests with {@link replay}. Offline and
 * deterministic where the tools are; a failed turn is reported through `onTurnEnd` and the rerun
 * goes on.
 *
 * @example
 * ```ts
 * const model = createRecordedModel({ events: recorded });
 * const agent = createAgent({ session, model, modelId, tools, systemPrompt,
 *   approve: async (request) => recordedApprovals(recorded).get(request.toolCallId) ?? 'once' });
 * const report = await rerun(recorded, { agent, model });
 * if (!report.ok) console.log(report.differences);
 * ```
 */
export async function rerun(
  recorded: readonly SessionEvent[],
  options: RerunOptions,
): Promise<RerunReport> {
  const { agent, model } = options;
  const inputs = recordedTurnInputs(recorded);
  const manual = options.compact ? recordedManualCompactions(recorded) : [];
  const titles = recordedTitles(recorded);
  let issued = 0;
  let titled = 0;
  // Issues, in recorded order, the manual compactions and titles placed before `turn` (all left:
  // no turn), so the rerun's log keeps the recording's sequence numbers.
  const compactUpTo = async (turn?: number): Promise<void> => {
    for (;;) {
      const compaction = issued < manual.length && isBefore(manual[issued]!, turn);
      const title = titled < titles.length && isBefore(titles[titled]!, turn);
      if (title && (!compaction || titles[titled]!.seq < manual[issued]!.seq)) {
        agent.session.append('session/title', titles[titled++]!.body);
      } else if (compaction) {
        options.onCompact?.();
        await options.compact!();
        issued++;
      } else return;
    }
  };
  const runOptions = options.signal ? { signal: options.signal } : {};
  for (const input of inputs) {
    await compactUpTo(input.turn);
    await options.beforeTurn?.(input);
    options.onTurn?.(input);
    const onStepEnd = ({ step }: { step: number }): void => {
      for (const queued of input.nextStep.filter((item) => item.step === step + 1))
        agent.enqueue(queued.content, 'next-step');
    };
    agent.on('step-end', onStepEnd);
    let result: TurnResult;
    try {
      result = await agent.run(input.content, runOptions);
    } finally {
      agent.off('step-end', onStepEnd);
    }
    options.onTurnEnd?.(result, input);
  }
  await compactUpTo();
  const session = agent.session;
  const events = session.events();
  const verified = replay(session, options.replay);
  const header = recorded[0]?.body as { cwd?: string } | undefined;
  const comparison = compareToolResults(recorded, events, {
    ...(header?.cwd !== undefined ? { recorded: header.cwd } : {}),
    ...(session.header.cwd !== undefined ? { rerun: session.header.cwd } : {}),
    ...options.workspaces,
  });
  const compactions = {
    recorded: completedCompactions(recorded),
    rerun: completedCompactions(events),
    manual: issued,
  };
  return {
    turns: inputs.length,
    modelOutputs: { recorded: model.total, replayed: model.served },
    toolResults: { recorded: comparison.recorded, rerun: comparison.rerun, same: comparison.same },
    differences: comparison.differences,
    verified,
    compactions,
    ok:
      comparison.differences.length === 0 &&
      model.served === model.total &&
      verified.ok &&
      compactions.recorded === compactions.rerun,
  };
}
