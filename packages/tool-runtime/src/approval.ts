import type { JsonValue, SandboxMode, ToolPermissions } from '@spine/protocol';
import { evaluateApprovalRules } from './command-rules.js';
import { InvalidRuntimeOptionsError } from './errors.js';
import { shellParserIfLoaded } from './shell-command-parse.js';

/** Names of the built-in approval policies. */
export type ApprovalPolicyName = 'ask' | 'auto-edit' | 'never-ask' | 'deny-all' | 'plan';

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
  /** Absolute paths the call will change (from the tool's `mutatedPaths`), when it declares them. */
  paths?: readonly string[];
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
 * string argument. For a tool that executes commands the argument is parsed as a bash command
 * line and the rule is applied to every command it runs (after removing wrappers such as `sudo`,
 * `env`, `command`, `nice`, `timeout`, `xargs` and `sh -c`): `prefix` matches the program's name
 * and the first arguments word by word (`git status` matches `/usr/bin/git status -s`), `pattern`
 * is a regular expression tested against each command's words joined by spaces (and, for a deny
 * rule, against the whole line). A deny rule denies if any command matches; an allow rule allows
 * only when every command is allowed and the line was parsed with confidence; when a deny rule
 * might apply but the line cannot be read with confidence, a person is asked. For other tools
 * `prefix` matches the argument's text at a word boundary. Deny rules win over allow rules. A rule
 * never grants an escalation, and rules are a convenience: the sandbox is the boundary.
 */
export interface ApprovalRule {
  /** Tool name glob (`bash`, `web_*`). */
  tool: string;
  /** Name of the string argument `prefix` or `pattern` is matched against (e.g. `command`). */
  argument?: string;
  /** The argument must start with this, at a word boundary. */
  prefix?: string;
  /**
   * The argument must match this regular expression. A string is RE2 syntax (linear-time; no
   * backreferences or lookaround), so configuration cannot make matching hang; a `RegExp` object
   * is used as given. A pattern that does not compile denies the call.
   */
  pattern?: string | RegExp;
  /** What the rule decides. */
  decision: 'allow' | 'deny';
  /** Why; recorded with the decision. */
  reason?: string;
}

function isSideEffecting(permissions: ToolPermissions): boolean {
  return Boolean(permissions.writesFiles || permissions.executes || permissions.network);
}

/**
 * Returns a built-in approval policy: `ask` (asks before anything that writes, executes or
 * reaches the network), `auto-edit` (file edits allowed, commands and network ask), `never-ask`
 * (runs everything inside the sandbox, never prompts, refuses escalations), `deny-all`, and `plan`
 * (plan mode: reads, searches and network reads run; anything that changes files or runs a command
 * is refused, whatever rules, hooks or earlier answers say).
 *
 * @throws an {@link InvalidRuntimeOptionsError} for an unknown name.
 */
export function createApprovalPolicy(name: ApprovalPolicyName): ApprovalPolicy {
  const decide = POLICIES[name];
  if (!decide) {
    throw new InvalidRuntimeOptionsError({
      reason: `unknown approval policy ${JSON.stringify(name)}; use ask, auto-edit, never-ask, deny-all or plan`,
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

const PLAN_ALLOW: ApprovalVerdict = Object.freeze({
  decision: 'allow',
  reason: 'plan mode allows reading, searching and fetching',
});

/**
 * The verdict of plan mode alone: `deny` for a call that changes files, runs a command (shell,
 * MCP tools not known to be read-only) or asks for extra permissions, else `allow`. The approval
 * layer applies it before rules, hooks and remembered answers, so nothing lets such a call through
 * while the `plan` policy is in force (also when the policy is wrapped, as user memory does).
 */
export function isPlanModeRefusal(check: ApprovalCheck): ApprovalVerdict | undefined {
  if (check.escalation)
    return {
      decision: 'deny',
      reason: 'plan mode refuses extra permissions; propose a plan instead',
    };
  if (check.permissions.writesFiles)
    return {
      decision: 'deny',
      reason: 'plan mode refuses changes to files; propose the change in your plan instead',
    };
  if (check.permissions.executes)
    return {
      decision: 'deny',
      reason:
        'plan mode refuses commands and tools with effects; read, search or fetch instead, and propose the rest in your plan',
    };
  return undefined;
}

const POLICIES: Record<ApprovalPolicyName, (check: ApprovalCheck) => ApprovalVerdict> = {
  plan: (check) => {
    const refusal = isPlanModeRefusal(check);
    if (refusal) return refusal;
    if (check.hookVerdict === 'ask')
      return { decision: 'ask', reason: 'a hook asked for approval' };
    return PLAN_ALLOW;
  },
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

/**
 * Returns the rule that decides this call (deny rules first), or `undefined` when no rule decides
 * (including when the rules want a person asked). Pass `permissions` with `executes: true` for a
 * shell tool: its argument is then parsed as a command line (load the parser first with
 * {@link loadShellParser}; without it no argument rule allows a command line). The runtime applies
 * the full outcome, including `ask`, through {@link evaluateApprovalRules}.
 */
export function matchApprovalRule(
  rules: readonly ApprovalRule[],
  call: { toolName: string; args: JsonValue; permissions?: ToolPermissions },
): ApprovalRule | undefined {
  const outcome = evaluateApprovalRules(rules, call, shellParserIfLoaded());
  return outcome?.decision === 'ask' ? undefined : outcome?.rule;
}
