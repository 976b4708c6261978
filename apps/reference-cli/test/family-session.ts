// A parent session with a subagent: the recorded example session twice (without its chain), the
// second as the child of the first (its header names the parent), and a second turn in the parent
// that starts and ends the child, and starts one more that is not in the store.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unchainedExampleEvents } from './fixtures.js';

/** The ids {@link writeFamilySessions} writes, and the child it names but does not write. */
export const FAMILY = { parent: 'example-parent', child: 'example-child', missing: 'gone-child' };

const toJsonl = (lines: readonly unknown[]): string =>
  `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;

/** Writes the parent and the child into `dir` (a JSONL session folder). */
export function writeFamilySessions(dir: string): void {
  const parent = unchainedExampleEvents();
  const parentHeader = (parent[0] as { body: Record<string, unknown> }).body;
  parentHeader.sessionId = FAMILY.parent;
  parentHeader.title = 'a session with a subagent';
  let seq = parent.length;
  const at = '2026-11-30T09:50:00.000Z';
  const add = (type: string, body: object) =>
    parent.push({ seq: ++seq, type, at, turn: 2, step: 1, body });
  add('turn/start', {});
  const start = { toolCallId: 'task-1', profile: 'explore', description: 'Look around', depth: 1 };
  add('agent/child/start', { sessionId: FAMILY.child, ...start });
  add('agent/child/end', { sessionId: FAMILY.child, toolCallId: 'task-1', reason: 'completed' });
  add('agent/child/start', { ...start, sessionId: FAMILY.missing, toolCallId: 'task-2' });
  add('turn/end', { reason: 'completed', steps: 1 });
  writeFileSync(join(dir, `${FAMILY.parent}.jsonl`), toJsonl(parent));

  const child = unchainedExampleEvents();
  const childHeader = (child[0] as { body: Record<string, unknown> }).body;
  childHeader.sessionId = FAMILY.child;
  childHeader.title = 'the subagent';
  childHeader.parent = { sessionId: FAMILY.parent, atSeq: seq - 3, toolCallId: 'task-1' };
  writeFileSync(join(dir, `${FAMILY.child}.jsonl`), toJsonl(child));
}
