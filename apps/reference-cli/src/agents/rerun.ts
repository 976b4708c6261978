// `spine rerun` of a session with subagents: the rerun's children are compared with the recorded
// ones afterwards, one line each.
import type { SessionStore } from '@spine/protocol';
import type { RecordedChildren } from '@spine/subagents';
import type { Style } from '@spine/tui';

/** Compares the rerun's children with the recorded ones; one line each. True when all match. */
export async function compareChildren(
  children: RecordedChildren,
  rerunStore: SessionStore,
  rerunId: string,
  options: {
    out: NodeJS.WritableStream;
    style: Style;
    workspaces: { recorded?: string; rerun?: string };
  },
): Promise<boolean> {
  const report = await children.compare(rerunStore, rerunId, options.workspaces);
  const { out, style } = options;
  for (const child of report.children) {
    const line = `subagent ${child.toolCallId}: model outputs ${child.modelOutputs.replayed}/${child.modelOutputs.recorded}, tool results identical ${child.toolResults.same}/${child.toolResults.recorded}, requests ${child.verified?.ok ? 'verified' : 'NOT verified'}`;
    out.write(`${child.ok ? style.green(line) : style.red(line)}\n`);
  }
  return report.ok;
}
