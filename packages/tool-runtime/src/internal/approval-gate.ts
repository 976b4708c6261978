import type { ApprovalAnswer, ApprovalRequest, JsonValue, ToolApprovalBody } from '@spine/protocol';
import {
  type ApprovalCheck,
  type ApprovalPolicy,
  type ApprovalRule,
  type EscalationRequest,
  matchApprovalRule,
} from '../approval.js';

/** The gate's answer: whether the call runs, the `tool/approval` body, and any granted permissions. */
export interface GateResult {
  allowed: boolean;
  body: ToolApprovalBody;
  granted?: { [key: string]: JsonValue };
}

/** Asks the person; `undefined` when nobody can be asked. */
export type Approver = (request: ApprovalRequest, options: { signal?: AbortSignal }) => Promise<ApprovalAnswer>;

/** Reads an escalation request (`args.escalation = { justification, permissions }`), if any. */
export function escalationOf(args: JsonValue): EscalationRequest | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const value = args.escalation;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { justification, permissions } = value;
  if (typeof justification !== 'string') return undefined;
  if (typeof permissions !== 'object' || permissions === null || Array.isArray(permissions)) return undefined;
  return { justification, permissions };
}

/**
 * The approval layer: deny-all, rules, hook verdicts, decisions remembered for the session,
 * the policy, and finally the person. Only a person's answer grants an escalation.
 */
export class ApprovalGate {
  private readonly remembered = new Set<string>();

  constructor(
    public policy: ApprovalPolicy,
    public rules: readonly ApprovalRule[],
  ) {}

  decide(
    toolCallId: string,
    check: ApprovalCheck,
    approve: Approver | undefined,
    signal: AbortSignal | undefined,
  ): GateResult | Promise<GateResult> {
    const base = { toolCallId, toolName: check.toolName };
    const escalation = check.escalation;
    const escalationBody = escalation ? { justification: escalation.justification, permissions: escalation.permissions } : undefined;
    const done = (allowed: boolean, by: string, scope: ToolApprovalBody['scope'], reason: string, granted?: boolean): GateResult => {
      const body: ToolApprovalBody = { ...base, decision: allowed ? 'allow' : 'deny', by, scope, reason };
      if (escalationBody) body.escalation = escalationBody;
      const result: GateResult = { allowed, body };
      if (allowed && granted && escalation) result.granted = escalation.permissions;
      return result;
    };
    const policyBy = `policy:${this.policy.name}`;
    if (this.policy.name === 'deny-all') return done(false, policyBy, 'policy', this.policy.decide(check).reason);
    const rule = matchApprovalRule(this.rules, check.toolName, check.args);
    if (rule?.decision === 'deny') return done(false, 'rule', 'rule', rule.reason ?? `denied by a rule for ${rule.tool}`);
    if (!escalation && check.hookVerdict === 'allow') return done(true, 'hook', 'once', 'allowed by a pre-execute hook');
    if (!escalation && rule?.decision === 'allow' && check.hookVerdict !== 'ask') {
      return done(true, 'rule', 'rule', rule.reason ?? `allowed by a rule for ${rule.tool}`);
    }
    const key = escalation ? `${check.toolName}\0${JSON.stringify(escalation.permissions)}` : check.toolName;
    if (this.remembered.has(key) && check.hookVerdict !== 'ask') {
      return done(true, 'user', 'session', 'allowed for this session earlier', true);
    }
    const verdict = this.policy.decide(check);
    if (verdict.decision === 'allow') return done(true, policyBy, 'policy', verdict.reason);
    if (verdict.decision === 'deny') return done(false, policyBy, 'policy', verdict.reason);
    if (!approve) return done(false, policyBy, 'policy', `needs approval (${verdict.reason}), and nobody can be asked`);
    const request: ApprovalRequest = { toolCallId, toolName: check.toolName, args: check.args, reason: verdict.reason };
    if (escalation) request.escalation = escalation;
    return approve(request, signal ? { signal } : {}).then(
      (answer) => {
        if (answer === 'always') this.remembered.add(key);
        if (answer === 'deny') return done(false, 'user', 'once', `the person declined (${verdict.reason})`);
        return done(true, 'user', answer === 'always' ? 'session' : 'once', verdict.reason, true);
      },
      (error: unknown) => done(false, 'user', 'once', `approval failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  }
}
