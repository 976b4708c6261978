import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApprovalPolicyName } from '@spine/tool-runtime';
import type { SpineConfig } from '../config/schema.js';
import { createMemoryApproval, type MemoryApproval } from './memory-approval.js';
import { type LoadedMemory, type MemoryFile, memoryFiles } from './memory-file.js';
import { loadMemories, renderMemorySection } from './memory-prompt.js';
import { createRememberTool, type RememberToolArguments } from './tool-remember.js';

/** Cross-session memory as wired into one session. */
export interface WiredMemory {
  /** The memory files, user first. */
  files: MemoryFile[];
  /** What was read when the session was wired (fixed for the session). */
  loaded: LoadedMemory[];
  /** The system-prompt section ('' when both files are missing or blank). */
  section: string;
  /** The `remember` tool. */
  tool: import('@spine/protocol').ToolDefinition<RememberToolArguments>;
  /** The approval rule for user-memory writes. */
  approval: MemoryApproval;
}

/**
 * Reads both memory files once for a session and builds the `remember` tool and its approval
 * rule. The section is registered by the caller after the project instructions.
 */
export function wireMemory(options: {
  cwd: string;
  userFile: string;
  sessionId: () => string;
  approval: ApprovalPolicyName;
}): WiredMemory {
  const files = memoryFiles(options.cwd, { userFile: options.userFile });
  const loaded = loadMemories(files);
  return {
    files,
    loaded,
    section: renderMemorySection(loaded),
    tool: createRememberTool({ files, sessionId: options.sessionId }),
    approval: createMemoryApproval(options.approval),
  };
}

/**
 * The configuration with the user memory file pointed at an empty temporary file, for runs that
 * must never read or write the person's real user memory (`spine rerun`). `dispose` removes it.
 */
export function scratchUserMemory(config: SpineConfig): { config: SpineConfig; dispose(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'spine-memory-'));
  return {
    config: { ...config, memory: { ...config.memory, userFile: join(dir, 'memory.md') } },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
