import {
  createSessionMemory,
  PROJECT_MEMORY_PATH,
  REMEMBER_TOOL,
  type SessionMemory,
} from '@spine/memory';
import {
  type ApprovalCheck,
  type ApprovalPolicy,
  type ApprovalPolicyName,
  createApprovalPolicy,
} from '@spine/tool-runtime';

/** Cross-session memory as wired into one session. */
export interface WiredMemory extends SessionMemory<ApprovalCheck> {
  /** Wraps a policy chosen later (`/approval`) with the user-memory rule. */
  mapApproval(policy: ApprovalPolicyName | ApprovalPolicy): ApprovalPolicy;
  /**
   * The runtime's `protectedPathWriters`: only `remember` may write project memory under the
   * policy; every other tool (write, edit) still needs a person for it.
   */
  protectedPathWriters: { readonly [tool: string]: readonly string[] };
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
  const memory = createSessionMemory<ApprovalCheck>({
    cwd: options.cwd,
    userFile: options.userFile,
    sessionId: options.sessionId,
    policy: createApprovalPolicy(options.approval),
  });
  return {
    ...memory,
    protectedPathWriters: { [REMEMBER_TOOL]: [PROJECT_MEMORY_PATH] },
    mapApproval: (policy) =>
      memory.approval.wrap(typeof policy === 'string' ? createApprovalPolicy(policy) : policy),
  };
}
