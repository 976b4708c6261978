import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { type AgentSession, childLabel, childMonitorFor } from '@spine/harness';
import type { ApprovalRequest } from '@spine/protocol';
import { applyEdits, type TextEdit } from '@spine/tool-runtime';
import type { ApprovalDetail, DiffPreview } from '@spine/tui';

/** Files larger than this are not diffed in an approval (the raw arguments are shown instead). */
const MAX_PREVIEW_BYTES = 2 * 1024 * 1024;

/** The real path of `path`, or of its nearest existing ancestor joined with the rest. */
function realOrParent(path: string): string {
  if (existsSync(path)) return realpathSync(path);
  const parent = dirname(path);
  return parent === path ? path : resolve(realOrParent(parent), relative(parent, path));
}

/** The file's text if it is inside `root` (after symlinks) and small enough; `''` if absent; else undefined. */
function currentText(root: string, path: string): string | undefined {
  const target = realOrParent(resolve(root, path));
  const inside = relative(realpathSync(root), target);
  if (inside.startsWith('..') || isAbsolute(inside)) return undefined;
  if (!existsSync(target)) return '';
  const stat = statSync(target);
  if (!stat.isFile() || stat.size > MAX_PREVIEW_BYTES) return undefined;
  return readFileSync(target, 'utf8');
}

/** The before/after of a `write` or `edit` request in workspace `root`; undefined for anything else. */
export function diffPreviewOf(root: string, request: ApprovalRequest): DiffPreview | undefined {
  const args = request.args as { path?: unknown; content?: unknown; edits?: unknown } | null;
  if (typeof args !== 'object' || args === null || typeof args.path !== 'string') return undefined;
  try {
    const before = currentText(root, args.path);
    if (before === undefined) return undefined;
    if (request.toolName === 'write' && typeof args.content === 'string')
      return { kind: 'write', path: args.path, before, after: args.content };
    if (request.toolName === 'edit' && Array.isArray(args.edits)) {
      const applied = applyEdits(before, args.edits as TextEdit[]);
      return 'problem' in applied
        ? undefined
        : { kind: 'edit', path: args.path, before, after: applied.text };
    }
  } catch {
    // Unreadable: the prompt shows the raw arguments instead.
  }
  return undefined;
}

/** How a command's network is described: `off`, or `only example.com, *.example.test`. */
export function networkText(network: 'off' | { domains: readonly string[] } | undefined): string {
  return !network || network === 'off' || network.domains.length === 0
    ? 'off'
    : `only ${network.domains.join(', ')} (through a filtering proxy)`;
}

/**
 * The approval detail for requests in workspace `root`: the diff of a write or edit, at the
 * terminal's width; for `bash`, the sandbox and network from `shell()`.
 */
export function approvalDetailFor(
  root: string,
  columns: () => number | undefined,
  shell?: () => { sandbox: string; network: string },
): (request: ApprovalRequest) => ApprovalDetail | undefined {
  return (request) => {
    if (request.toolName === 'bash' && shell) return { shell: shell() };
    const diff = diffPreviewOf(root, request);
    return diff ? { diff, width: columns() ?? 80 } : undefined;
  };
}

/**
 * A REPL's approval request described for the person: the subagent that asks (`explore #1`), if
 * any, and the diff of a write or edit, or the sandbox and network of a command (a subagent's
 * command runs in its own sandbox, its profile's narrowed to the parent's).
 */
export function describeApproval(
  request: ApprovalRequest,
  context: { cwd: string; active: AgentSession; network: string },
): { label: string | undefined; detail: ApprovalDetail | undefined } {
  const { active } = context;
  const sessionId = (request as { child?: { sessionId?: string } }).child?.sessionId;
  const child = sessionId ? childMonitorFor(active.session).bySession(sessionId) : undefined;
  const detail = approvalDetailFor(
    context.cwd,
    () => process.stdout.columns,
    () => ({ sandbox: child?.info.sandbox ?? active.runtime.sandbox, network: context.network }),
  )(request);
  return { label: child ? childLabel(child) : undefined, detail };
}
