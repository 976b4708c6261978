// Subagent trees of a session: the session index counts children's usage, a resumed session
// first closes the children a crash left running, `/agents` lists the profiles on offer.
import {
  addUsage,
  type SessionEvent,
  type SessionStore,
  type Usage,
  visibleText,
} from '@spine/protocol';

/** The parent's usage plus what each child reported in `agent/child/end` (children's included). */
export function withChildUsage(own: Usage, events: readonly SessionEvent[]): Usage {
  let total = own;
  for (const event of events) {
    if (event.type !== 'agent/child/end') continue;
    const usage = (event.body as { usage?: Usage }).usage;
    if (usage) total = addUsage(total, usage);
  }
  return total;
}

/** Closes children a crash left open before a session is resumed; warns what it reported. */
export async function recoverChildrenForResume(
  store: SessionStore,
  id: string,
  warn: (message: string) => void,
): Promise<void> {
  const { recoverChildren } = await import('@spine/subagents');
  for (const child of await recoverChildren(store, id))
    warn(
      `subagent ${child.sessionId} (call ${child.toolCallId}) was running when the process stopped: ${child.reason === 'completed' ? 'it had finished; its answer is recorded' : 'outcome unknown, recorded as such'}`,
    );
}

/** `/agents`: the profiles the task tool offers, with where each comes from. */
export async function describeProfiles(cwd: string): Promise<string> {
  const { loadCliProfiles } = await import('./wiring.js');
  const warnings: string[] = [];
  const profiles = await loadCliProfiles(cwd, (message) => warnings.push(message));
  const lines = profiles.map(
    (profile) =>
      `  ${profile.name.padEnd(12)} ${visibleText(profile.description.split('. ')[0] ?? '')} [${profile.sandbox ?? 'parent sandbox'}; ${profile.tools ? profile.tools.join(', ') : 'parent tools'}; ${visibleText(profile.source)}]`,
  );
  return [...lines, ...warnings.map((warning) => `  warning: ${visibleText(warning)}`)].join('\n');
}
