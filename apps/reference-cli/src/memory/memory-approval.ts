import type { JsonValue, PreExecuteHook, PreExecuteVerdict } from '@spine/protocol';
import {
  type ApprovalPolicy,
  type ApprovalPolicyName,
  type ApprovalVerdict,
  createApprovalPolicy,
} from '@spine/tool-runtime';
import { REMEMBER_TOOL } from './tool-remember.js';

const REASON =
  'writes user memory, a file outside the workspace that every later session reads; only a person can approve it';

const ASK: ApprovalVerdict = Object.freeze({ decision: 'ask', reason: REASON });
const HOOK_ASK: PreExecuteVerdict = Object.freeze({ decision: 'ask', reason: REASON });

/** True for a `remember` call with `scope: "user"`. */
export function isUserMemoryWrite(toolName: string, args: JsonValue): boolean {
  return (
    toolName === REMEMBER_TOOL &&
    typeof args === 'object' &&
    args !== null &&
    !Array.isArray(args) &&
    args.scope === 'user'
  );
}

/** Policies under which a person approves a user-memory write: all but `never-ask` and `deny-all`. */
function asksPerson(policyName: string): boolean {
  return policyName !== 'never-ask' && policyName !== 'deny-all';
}

/** The approval rule for user memory, applied to whichever policy is in force. */
export interface MemoryApproval {
  /**
   * Wraps a policy so a user-memory write asks the person (except under `never-ask`); the result
   * becomes {@link MemoryApproval.policy}, the one the hook follows.
   */
  wrap(policy: ApprovalPolicyName | ApprovalPolicy): ApprovalPolicy;
  /** The policy last wrapped (at first, the initial one): the one to build a runtime with. */
  readonly policy: ApprovalPolicy;
  /**
   * A pre-execute hook saying `ask` for a user-memory write under the same policies. A hook's
   * `ask` also bypasses answers remembered for the session, so an `always` given to a
   * project-scope `remember` never covers a user-scope one.
   */
  hook: PreExecuteHook;
}

/**
 * Creates the approval rule for user memory. The user file lies outside the workspace, so a write
 * is treated like an escalation: under `ask` and `auto-edit` the person is asked every time
 * (without anyone to ask, it is denied); `never-ask` writes it without asking (it never asks,
 * by the person's own choice); `deny-all` refuses it. Project memory follows the policy like
 * `write` and `edit`.
 */
export function createMemoryApproval(initial: ApprovalPolicyName): MemoryApproval {
  let current: ApprovalPolicy;
  const approval: MemoryApproval = {
    wrap(policy) {
      const base = typeof policy === 'string' ? createApprovalPolicy(policy) : policy;
      current = {
        specificationVersion: 1,
        name: base.name,
        decide: (check) =>
          asksPerson(base.name) && isUserMemoryWrite(check.toolName, check.args)
            ? ASK
            : base.decide(check),
      };
      return current;
    },
    get policy() {
      return current;
    },
    hook: (call) =>
      asksPerson(current.name) && isUserMemoryWrite(call.toolName, call.args)
        ? HOOK_ASK
        : undefined,
  };
  current = approval.wrap(initial);
  return approval;
}
