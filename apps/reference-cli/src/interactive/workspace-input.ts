import type { AgentSession } from '@spine/harness';
import {
  checkWorkspaceReference,
  fileReferencesOf,
  searchWorkspaceFiles,
} from '@spine/tool-runtime';
import { completeSlash } from './slash-commands.js';

/** The workspace a typed line refers into: its root, excluded globs and MCP resources. */
export interface WorkspaceInput {
  readonly cwd: string;
  readonly exclude: readonly string[];
  readonly mcp: AgentSession['mcp'];
}

/** Warnings about `@path` references that are refused (outside, excluded) or do not exist. */
export function referenceProblems(line: string, workspace: WorkspaceInput): string[] {
  const problems: string[] = [];
  for (const reference of fileReferencesOf(line)) {
    // `@server:uri` names an MCP resource, read through the server's read_resource tool.
    if (workspace.mcp?.isResourceReference(reference)) continue;
    const verdict = checkWorkspaceReference(workspace.cwd, reference, {
      exclude: workspace.exclude,
    });
    if (verdict === 'missing') problems.push(`@${reference}: no such file in this workspace`);
    if (verdict === 'refused')
      problems.push(`@${reference}: refused (outside the workspace or excluded)`);
  }
  return problems;
}

/** readline completion: `@path` (or an MCP resource) and slash command names. */
export function completeInput(line: string, workspace: WorkspaceInput): [string[], string] {
  const reference = /@([^\s@]*)$/.exec(line);
  if (reference) {
    const query = reference[1] ?? '';
    const resources = workspace.mcp?.completeResource(query) ?? [];
    if (resources.length > 0) return [resources.map((entry) => `@${entry}`), `@${query}`];
    const hits = searchWorkspaceFiles(workspace.cwd, query, {
      exclude: workspace.exclude,
      limit: 30,
    });
    return [hits.map((hit) => `@${hit.path}`), `@${query}`];
  }
  if (line.startsWith('/') && !line.includes(' ')) return [completeSlash(line), line];
  return [[], line];
}
