import type { JsonValue, SandboxMode, ToolPermissions } from '@spine/protocol';
import picomatch from 'picomatch';
import { InvalidRuntimeOptionsError } from './errors.js';

/** Names of the built-in approval policies. */
export type ApprovalPolicyName = 'ask' | 'auto-edit' | 'never-ask' | 'deny-all';

/** Extra sandbox permissions a call asks for, with its justification. */
export interface EscalationRequest {
  /** Why the call needs more than the sandbox allows. */
  justification: string;
  /** The permissions asked for (for `bash`: `network`, `fullAccess`). */
  permissions: { [key: string]: JsonValue };
}

/** What an approval policy sees of one call. */
export interface ApprovalCheck {
  /** The tool called. */
  toolName: string;
  /** Parsed, validated arguments. */
  args: JsonValue;
  /** The tool's declared permissions (empty for a read-only tool). */
  permissions: ToolPermissions;
  /** The sandbox mode in force. */
  sandbox: SandboxMode;
  /** Present when the call asks for extra permissions; only the person can grant it. */
  escalation?: EscalationRequest;
  /** A pre-execute hook asked for (or allowed) this call. */
  hookVerdict?: 'allow' | 'ask';
}

/** A policy's verdict: run, refuse, or ask the person. */
export interface ApprovalVerdict {
  /** Run it, refuse it, or ask the person. */
  decision: 'allow' | 'deny' | 'ask';
  /** Why, recorded in `tool/approval` and shown to the person or the model. */
  reason: string;
}

/** An approval policy; the built-ins come from {@link createApprovalPolicy}. */
export interface ApprovalPolicy {
  /** Interface version; the runtime refuses a policy with another. */
  readonly specificationVersion: 1;
  /** Recorded as `by: "policy:<name>"` in `tool/approval`. */
  readonly name: string;
  /** Decides synchronously; `ask` goes to the runtime's `approve` callback. */
  decide(check: ApprovalCheck): ApprovalVerdict;
}

/**
 * Allows or denies calls by tool name (a glob such as `bash` or `web_*`) and, optionally, by one
 * string argument: `prefix` matches a command prefix at a word boundary (for an `allow` rule the
 * rest must hold no shell control characters, so `git status; rm -rf /` does not match
 * `git status`), `pattern` is a regular expression. Deny rules win over allow rules. A rule never
 * grants an escalation.
 */
export interface ApprovalRule {
  /** Tool name glob (`bash`, `web_*`). */
  tool: string;
  /** Name of the string argument `prefix` or `pattern` is matched against (e.g. `command`). */
  argument?: string;
  /** The argument must start with this, at a word boundary. */
  prefix?: string;
  /** The argument must match this regular expression. */
  pattern?: string | RegExp;
  /** What the rule decides. */
  decision: 'allow' | 'deny';
  /** Why; recorded with the decision. */
  reason?: string;
}

const SHELL_CONTROL = /[;&|`$<>\n\r()]/;

function isSideEffecting(permissions: ToolPermissions): boolean {
  return Boolean(permissions.writesFiles || permissions.executes || permissions.network);
}

/**
 * Returns a built-in approval policy: `ask` (asks before anything that writes, executes or
 * reaches the network), `auto-edit` (file edits allowed, commands and network ask), `never-ask`
 * (runs everything inside the sandbox, never prompts, refuses escalations), `deny-all`.
 *
 * @throws {InvalidRuntimeOptionsError} for an unknown name.
 */
export function createApprovalPolicy(name: ApprovalPolicyName): ApprovalPolicy {
  const decide = POLICIES[name];
  if (!decide) {
    throw new InvalidRuntimeOptionsError({
      reason: `unknown approval policy ${JSON.stringify(name)}; use ask, auto-edit, never-ask or deny-all`,
    });
  }
  return { specificationVersion: 1, name, decide };
}

// Constant verdicts for the common answers, so deciding allocates nothing.
const NEVER_ASK_ALLOW: ApprovalVerdict = Object.freeze({
  decision: 'allow',
  reason: 'never-ask runs every call inside the sandbox',
});
const AUTO_EDIT_ALLOW: ApprovalVerdict = Object.freeze({
  decision: 'allow',
  reason: 'auto-edit allows reads and workspace edits',
});
const READ_ONLY_ALLOW: ApprovalVerdict = Object.freeze({
  decision: 'allow',
  reason: 'read-only tool',
});

const POLICIES: Record<ApprovalPolicyName, (check: ApprovalCheck) => ApprovalVerdict> = {
  'deny-all': () => ({
    decision: 'deny',
    reason: 'the deny-all approval policy refuses every tool call',
  }),
  'never-ask': (check) => {
    if (check.escalation) {
      return {
        decision: 'deny',
        reason:
          'extra permissions need approval, and the never-ask policy never asks; retry without escalation',
      };
    }
    if (check.hookVerdict === 'ask') {
      return {
        decision: 'deny',
        reason: 'a hook asked for approval, and the never-ask policy never asks',
      };
    }
    return NEVER_ASK_ALLOW;
  },
  'auto-edit': (check) => {
    if (check.escalation)
      return {
        decision: 'ask',
        reason: `asks for extra permissions: ${check.escalation.justification}`,
      };
    if (check.hookVerdict === 'ask')
      return { decision: 'ask', reason: 'a hook asked for approval' };
    if (check.permissions.executes) return { decision: 'ask', reason: 'runs a command' };
    if (check.permissions.network) return { decision: 'ask', reason: 'reaches the network' };
    return AUTO_EDIT_ALLOW;
  },
  ask: (check) => {
    if (check.escalation)
      return {
        decision: 'ask',
        reason: `asks for extra permissions: ${check.escalation.justification}`,
      };
    if (check.hookVerdict === 'ask')
      return { decision: 'ask', reason: 'a hook asked for approval' };
    if (isSideEffecting(check.permissions)) {
      const what = check.permissions.executes
        ? 'runs a command'
        : check.permissions.network
          ? 'reaches the network'
          : 'changes files';
      return { decision: 'ask', reason: what };
    }
    return READ_ONLY_ALLOW;
  },
};

function ruleMatches(rule: ApprovalRule, toolName: string, args: JsonValue): boolean {
  if (!picomatch.isMatch(toolName, rule.tool)) return false;
  if (rule.argument === undefined) return rule.prefix === undefined && rule.pattern === undefined;
  const value =
    typeof args === 'object' && args !== null && !Array.isArray(args)
      ? args[rule.argument]
      : undefined;
  if (typeof value !== 'string') return false;
  if (rule.prefix !== undefined) {
    const trimmed = value.trim();
    if (trimmed !== rule.prefix && !trimmed.startsWith(`${rule.prefix} `)) return false;
    if (rule.decision === 'allow' && SHELL_CONTROL.test(trimmed.slice(rule.prefix.length)))
      return false;
  }
  if (rule.pattern !== undefined) {
    const pattern = typeof rule.pattern === 'string' ? new RegExp(rule.pattern) : rule.pattern;
    if (!pattern.test(value)) return false;
  }
  return true;
}

/** Returns the rule that decides this call (deny rules first), or `undefined`. */
export function matchApprovalRule(
  rules: readonly ApprovalRule[],
  call: { toolName: string; args: JsonValue },
): ApprovalRule | undefined {
  return (
    rules.find((rule) => rule.decision === 'deny' && ruleMatches(rule, call.toolName, call.args)) ??
    rules.find((rule) => rule.decision === 'allow' && ruleMatches(rule, call.toolName, call.args))
  );
}
