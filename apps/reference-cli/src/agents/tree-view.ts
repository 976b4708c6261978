// Subagent trees on the terminal: `spine replay --verify` verifies every child, `spine show` lists
// the children under the transcript.
import { type SessionStore, visibleText } from '@spine/protocol';
import type { Style } from '@spine/tui';

/**
 * Verifies the children of a session (and theirs) after the parent's own replay: one line per
 * child unless `quiet`. True when every child replays and links both ways (or there is none).
 */
export async function verifyChildren(
  store: SessionStore,
  id: string,
  options: { out: NodeJS.WritableStream; style: Style; quiet?: boolean },
): Promise<boolean> {
  const { replayTree } = await import('@spine/subagents');
  const report = await replayTree(store, id);
  const { out, style } = options;
  for (const entry of report.sessions.slice(1)) {
    if (options.quiet) continue;
    const ok = entry.report.ok && entry.problems.length === 0;
    const what = ok
      ? style.green(`ok (${entry.report.requests.length} requests)`)
      : style.red(
          `MISMATCH ${entry.report.firstMismatch?.mismatch?.field ?? ''}${entry.problems.join('; ')}`,
        );
    out.write(`${'  '.repeat(entry.depth)}child ${entry.sessionId}: ${what}\n`);
  }
  if (!options.quiet && report.sessions.length > 1) {
    const verdict = report.ok
      ? `verified: ${report.sessions.length - 1} child session(s) replay and link to their parent`
      : 'MISMATCH in a child session';
    out.write(`${report.ok ? style.green(verdict) : style.red(verdict)}\n`);
  }
  return report.ok;
}

/** The tree of children under a session, one line each (profile, description, outcome, session). */
export async function renderChildTree(
  store: SessionStore,
  id: string,
  style: Style,
): Promise<string> {
  const { readChildTree, totalTokens } = await import('@spine/subagents');
  const root = await readChildTree(store, id);
  if (root.children.length === 0) return '';
  const lines: string[] = [
    style.dim(`subagents (tokens with children: ${totalTokens(root.usage)})`),
  ];
  const walk = (node: typeof root): void => {
    for (const child of node.children) {
      const link = child.link;
      const reason = link?.end?.reason ?? 'running';
      const files = link?.end?.files?.length ? ` files: ${link.end.files.join(', ')}` : '';
      lines.push(
        `${'  '.repeat(child.depth)}${visibleText(link?.start.profile ?? '?')}: ${visibleText(link?.start.description ?? '')} — ${reason}, ${totalTokens(child.usage)} tokens (cache hit ${child.usage.cacheReadTokens})${visibleText(files)} (spine show ${child.sessionId})`,
      );
      walk(child);
    }
  };
  walk(root);
  return `${lines.join('\n')}\n`;
}
