// Where a workspace's checkpoints are kept (one shadow store per workspace, shared by its
// sessions, each with its own index, under the session folder) and how it classifies tool calls for them.

import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { CallEffect, CheckpointStore } from '@spine/checkpoints';
import type { SandboxMode, ToolCallPart } from '@spine/protocol';
import type { SpineConfig } from '../config/schema.js';

/** The checkpoint folder of `workspace`: `<sessionDir>/checkpoints/<hash of its real path>`. */
export function checkpointDirFor(
  config: Pick<SpineConfig, 'sessionDir'>,
  workspace: string,
): string {
  let real = resolve(workspace);
  try {
    real = realpathSync(real);
  } catch {
    // A workspace that no longer exists keeps its resolved path as key.
  }
  const key = createHash('sha256').update(real).digest('hex').slice(0, 16);
  return join(config.sessionDir, 'checkpoints', key);
}

/**
 * The git checkpoint store of `workspace` with the configured size cap; with `session`, that
 * session's view of it (its own index and last snapshot, so sessions never share a lock).
 */
export async function checkpointStoreFor(
  config: Pick<SpineConfig, 'sessionDir' | 'rewind'>,
  workspace: string,
  session?: string,
): Promise<CheckpointStore> {
  const { createGitCheckpointStore } = await import('@spine/checkpoints');
  return createGitCheckpointStore({
    workspace,
    directory: checkpointDirFor(config, workspace),
    maxFileBytes: config.rewind.maxFileBytes,
    ...(session ? { session } : {}),
  });
}

// Tools that never change the workspace.
const READ_ONLY = new Set([
  'read',
  'grep',
  'glob',
  'list',
  'recall_history',
  'web_search',
  'web_fetch',
]);
// File tools whose one `path` argument is all they change.
const FILE_TOOLS = new Set(['write', 'edit']);

/**
 * How a call may change the workspace: file tools only their path, read-only tools nothing,
 * anything else (shell commands, MCP tools, subagents, memory) possibly anything — unless the
 * sandbox is read-only.
 */
export function classifyCall(call: ToolCallPart, sandbox: SandboxMode): CallEffect {
  if (READ_ONLY.has(call.name) || call.name.startsWith('lsp_')) return undefined;
  if (FILE_TOOLS.has(call.name)) {
    const path = pathArgument(call.arguments);
    return path === undefined ? undefined : { paths: [path] };
  }
  return sandbox === 'read-only' ? undefined : 'workspace';
}

/** The `path` argument of a call's JSON arguments, if it has a string one. */
export function pathArgument(text: string): string | undefined {
  try {
    const parsed = JSON.parse(text) as { path?: unknown };
    return typeof parsed.path === 'string' ? parsed.path : undefined;
  } catch {
    return undefined;
  }
}
