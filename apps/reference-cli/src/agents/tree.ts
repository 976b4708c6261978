// Subagent trees in the CLI: `spine replay --verify` verifies every child, `spine show` lists the
// children under the transcript, `spine sessions` / the session index count children's usage.
import { addUsage, type SessionEvent, type SessionStore, type Usage } from '@spine/protocol';
import type { Style } from '../present/style.js';
import { visibleText } from '../present/terminal-text.js';

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
