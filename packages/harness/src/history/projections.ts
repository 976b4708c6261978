// How the agent's sessions are opened to continue them: lazily (the header, the surface and the events since
// the newest snapshot are held; older events are read from the store when asked for), with the
// projections the agent loop, compaction and the session totals fold their state into, so that state comes
// from the snapshot instead of a pass over the whole log.

import type { SessionProjection } from '@spine/session-log';
import { JOBS_STATE } from '../jobs/jobs-state.js';
import { PLAN_MODE_STATE } from '../plan/plan-mode-resume.js';
import { PLAN_STATE } from '../plan/plan-state.js';
import { RESUME_STATE } from './resume-state.js';
import { SESSION_TOTALS } from './totals.js';

/**
 * The projections every session the agent runs keeps in its snapshots (agent loop, compaction,
 * {@link SESSION_TOTALS}, {@link RESUME_STATE}): pass them to `Session.create` / `Session.open` for a session the agent
 * will write to.
 */
export async function agentProjections(): Promise<SessionProjection[]> {
  const [{ agentLoopProjections }, { compactionProjections }] = await Promise.all([
    import('@spine/agent-loop'),
    import('@spine/compaction'),
  ]);
  return [
    ...agentLoopProjections,
    ...compactionProjections,
    SESSION_TOTALS,
    RESUME_STATE as unknown as SessionProjection,
    PLAN_STATE as unknown as SessionProjection,
    PLAN_MODE_STATE as unknown as SessionProjection,
    JOBS_STATE as unknown as SessionProjection,
  ];
}

/**
 * `lazy`, unless `SPINE_SESSION_HISTORY=full` asks for every event to be read and held (the
 * behaviour before lazy opening; for comparison and troubleshooting).
 */
export function historyMode(env: NodeJS.ProcessEnv = process.env): 'lazy' | 'full' {
  return env.SPINE_SESSION_HISTORY === 'full' ? 'full' : 'lazy';
}
