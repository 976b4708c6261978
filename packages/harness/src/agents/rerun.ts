// A rerun of a session with subagents: each child answers from its own recording (the rerun's
// children are compared with the recorded ones afterwards, with `RecordedChildren.compare`).
import type { SessionStore } from '@spine/protocol';
import type { RecordedChildren } from '@spine/subagents';

/** The recorded children of `id`, or undefined when it started none. */
export async function recordedChildrenOf(
  store: SessionStore,
  id: string,
  events: readonly { type: string }[],
): Promise<RecordedChildren | undefined> {
  if (!events.some((event) => event.type === 'agent/child/start')) return undefined;
  const { recordedChildren } = await import('@spine/subagents');
  return recordedChildren(store, id);
}
