import type { ToolDefinition } from '@spine/protocol';
import {
  createMemoryApproval,
  type MemoryApproval,
  type MemoryApprovalCheck,
  type MemoryApprovalPolicy,
} from './memory-approval.js';
import { type LoadedMemory, type MemoryFile, memoryFiles } from './memory-file.js';
import { loadMemories, renderMemorySection } from './memory-prompt.js';
import { createRememberTool, type RememberToolArguments } from './tool-remember.js';

/** Options of {@link createSessionMemory}. */
export interface SessionMemoryOptions<Check extends MemoryApprovalCheck> {
  /** The workspace (absolute): project memory is `<cwd>/.spine/memory.md`. */
  cwd: string;
  /** The user memory file (absolute), shared by every workspace. */
  userFile: string;
  /** The session writing facts (recorded in their provenance). */
  sessionId: () => string;
  /** The approval policy in force, wrapped by the user-memory rule. */
  policy: MemoryApprovalPolicy<Check>;
  /** The clock for provenance dates (default: now). */
  now?: () => Date;
}

/** Cross-session memory for one session: what it read, its prompt section, its tool and rule. */
export interface SessionMemory<Check extends MemoryApprovalCheck = MemoryApprovalCheck> {
  /** The memory files, user first. */
  files: MemoryFile[];
  /** What was read when the session started (fixed for the session). */
  loaded: LoadedMemory[];
  /** The system-prompt section ('' when both files are missing or blank). */
  section: string;
  /** The `remember` tool. */
  tool: ToolDefinition<RememberToolArguments>;
  /** The approval rule for user-memory writes. */
  approval: MemoryApproval<Check>;
}

/**
 * Reads both memory files once for a session and builds the `remember` tool and its approval
 * rule. Register `section` in the system prompt, `tool` in the tool runtime, `approval.policy` as
 * its policy and `approval.hook` last on its pre-execute hooks.
 *
 * @example
 * ```ts
 * const memory = createSessionMemory({
 *   cwd, userFile, sessionId: () => session.id, policy: createApprovalPolicy('auto-edit'),
 * });
 * const runtime = createToolRuntime({ cwd, tools: [memory.tool], approval: memory.approval.policy });
 * runtime.hooks.preExecute.push(memory.approval.hook);
 * ```
 */
export function createSessionMemory<Check extends MemoryApprovalCheck>(
  options: SessionMemoryOptions<Check>,
): SessionMemory<Check> {
  const files = memoryFiles(options.cwd, { userFile: options.userFile });
  const loaded = loadMemories(files);
  return {
    files,
    loaded,
    section: renderMemorySection(loaded),
    tool: createRememberTool({
      files,
      sessionId: options.sessionId,
      ...(options.now ? { now: options.now } : {}),
    }),
    approval: createMemoryApproval(options.policy),
  };
}
