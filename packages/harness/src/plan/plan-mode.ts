// Plan mode (issue 38): the `plan` approval policy (reads, searches, fetches and questions run;
// writes, commands and MCP tools not known to be read-only are refused, for subagents too: they
// follow the parent's policy in force), a system prompt section that says so, and the person's
// switch into it and back to the previous policy, each recorded as a `plan/mode` event so a
// replay, a rerun and every view see when the session was planning.

import type { PlanModeBody, SessionEvent } from '@spine/protocol';
import type { Session } from '@spine/session-log';
import type { SpineConfig } from '../config/schema.js';

/** The approval policies of the configuration, `plan` included. */
export type ApprovalName = SpineConfig['approval'];

/** The system prompt section in force while plan mode is on. */
export const PLAN_MODE_PROMPT = `Plan mode is on. You may read, search, fetch web pages, ask subagents to explore, and ask the user questions. You may not change files, run commands or use tools with effects: such calls are refused.
Investigate what you need, then end your answer with a proposed plan: numbered steps naming the files and changes, how to verify them, and open questions. The user chooses whether to implement it (plan mode ends) or keep planning.`;

/** The prompt contribution id of plan mode. */
const CONTRIBUTION_ID = 'plan-mode';

/** What plan mode switches: the runtime's policy, the prompt, and the session's own record. */
export interface PlanModeTarget {
  /** The open session; the switch is appended to it. */
  session: Session;
  /** The tool runtime; its policy changes (and its running children's). */
  runtime: {
    /** Switches the approval policy. */
    setApproval(policy: ApprovalName): void;
  };
  /** The system prompt; the plan-mode section is added or removed. */
  prompt: import('@spine/agent-loop').SystemPrompt;
}

/** Adds or removes the plan-mode section of `prompt` to match `approval`. */
export function syncPlanModePrompt(
  prompt: import('@spine/agent-loop').SystemPrompt,
  approval: ApprovalName,
): void {
  if (approval === 'plan')
    prompt.register({
      id: CONTRIBUTION_ID,
      sections: [{ id: CONTRIBUTION_ID, text: PLAN_MODE_PROMPT, order: 90 }],
    });
  // Registering the id again with no sections replaces (removes) the section.
  else if (prompt.contributionIds().includes(CONTRIBUTION_ID))
    prompt.register({ id: CONTRIBUTION_ID, sections: [] });
}

/** The policy each session was in before plan mode, to return to when implementing. */
const beforePlan = new WeakMap<Session, ApprovalName>();

/**
 * Applies a recorded or requested `plan/mode` change: sets the policy, the prompt section, and
 * appends the event. Returns the body appended.
 */
export function applyPlanMode(target: PlanModeTarget, body: PlanModeBody): PlanModeBody {
  target.runtime.setApproval(body.approval as ApprovalName);
  syncPlanModePrompt(target.prompt, body.approval as ApprovalName);
  target.session.append('plan/mode', body);
  if (body.mode === 'plan' && body.previous && body.previous !== 'plan')
    beforePlan.set(target.session, body.previous as ApprovalName);
  return body;
}

/**
 * Enters plan mode from `current` (a person's `/plan`); the body remembers `current` so
 * {@link leavePlanMode} can return to it. Returns `undefined` when plan mode is already on.
 */
export function enterPlanMode(
  target: PlanModeTarget,
  current: ApprovalName,
  by: PlanModeBody['by'] = 'person',
): PlanModeBody | undefined {
  if (current === 'plan') return undefined;
  return applyPlanMode(target, { mode: 'plan', approval: 'plan', previous: current, by });
}

/**
 * Leaves plan mode to implement the plan: back to the policy in force before this process entered
 * plan mode, or `fallback` when the session started in plan mode. Returns `undefined` when plan mode is off.
 */
export function leavePlanMode(
  target: PlanModeTarget,
  current: ApprovalName,
  fallback: Exclude<ApprovalName, 'plan'>,
): PlanModeBody | undefined {
  if (current !== 'plan') return undefined;
  const back = beforePlan.get(target.session) ?? fallback;
  return applyPlanMode(target, {
    mode: 'implement',
    approval: back,
    previous: 'plan',
    by: 'person',
  });
}

/**
 * The recorded `plan/mode` changes made after the turn before `turn` and before `turn` started,
 * in order: what a rerun applies again before re-running that turn.
 */
export function planModesBefore(recorded: readonly SessionEvent[], turn: number): PlanModeBody[] {
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
    .filter((event) => event.type === 'plan/mode' && event.seq > from && event.seq < (to ?? 0))
    .map((event) => event.body as PlanModeBody);
}
