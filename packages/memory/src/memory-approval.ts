import type { JsonValue, PreExecuteHook, PreExecuteVerdict } from '@spine/protocol';
import { REMEMBER_TOOL } from './tool-remember.js';

const REASON =
  'writes user memory, a file outside the workspace that every later session reads; only a person can approve it';

const ASK: MemoryApprovalVerdict = Object.freeze({ decision: 'ask', reason: REASON });
const HOOK_ASK: PreExecuteVerdict = Object.freeze({ decision: 'ask', reason: REASON });

/** The part of an approval check the memory rule reads (a tool runtime's check has more). */
export interface MemoryApprovalCheck {
  /** The tool called. */
  toolName: string;
  /** Parsed, validated arguments. */
  args: JsonValue;
}

/** A policy's verdict: run, refuse, or ask the person. */
export interface MemoryApprovalVerdict {
  /** Run it, refuse it, or ask the person. */
  decision: 'allow' | 'deny' | 'ask';
  /** Why, for the log and the person. */
  reason: string;
}

/**
 * An approval policy, shaped like `@spine/tool-runtime`'s `ApprovalPolicy` (which satisfies it
 * with `Check = ApprovalCheck`), so the rule wraps any runtime's policy without depending on it.
 */
export interface MemoryApprovalPolicy<Check extends MemoryApprovalCheck = MemoryApprovalCheck> {
  /** Interface version. */
  readonly specificationVersion: 1;
  /** The policy's name: `ask`, `auto-edit`, `never-ask`, `deny-all` or your own. */
  readonly name: string;
  /** Decides synchronously. */
  decide(check: Check): MemoryApprovalVerdict;
}

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
export interface MemoryApproval<Check extends MemoryApprovalCheck = MemoryApprovalCheck> {
  /**
   * Wraps a policy so a user-memory write asks the person (except under `never-ask`); the result
   * becomes {@link MemoryApproval.policy}, the one the hook follows.
   */
  wrap(policy: MemoryApprovalPolicy<Check>): MemoryApprovalPolicy<Check>;
  /** The policy last wrapped (at first, the initial one): the one to build a runtime with. */
  readonly policy: MemoryApprovalPolicy<Check>;
  /**
   * A pre-execute hook saying `ask` for a user-memory write under the same policies. A hook's
   * `ask` also bypasses answers remembered for the session, so an `always` given to a
   * project-scope `remember` never covers a user-scope one.
   */
  hook: PreExecuteHook;
}

/**
 * Creates the approval rule for user memory around a policy (for `@spine/tool-runtime`, one from
 * `createApprovalPolicy`). The user file lies outside the workspace, so a write is treated like an
 * escalation: under every policy but `never-ask` and `deny-all` the person is asked every time
 * (without anyone to ask, it is denied); `never-ask` writes it without asking (it never asks, by
 * the person's own choice); `deny-all` refuses it. Project memory follows the policy like any
 * file write.
 *
 * @example
 * ```ts
 * const rule = createMemoryApproval(createApprovalPolicy('auto-edit'));
 * const runtime = createToolRuntime({ cwd, tools: [remember], approval: rule.policy });
 * runtime.hooks.preExecute.push(rule.hook);
 * ```
 */
export function createMemoryApproval<Check extends MemoryApprovalCheck>(
  initial: MemoryApprovalPolicy<Check>,
): MemoryApproval<Check> {
  let current: MemoryApprovalPolicy<Check>;
  const approval: MemoryApproval<Check> = {
    wrap(base) {
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
