import type { ApprovalAnswer, ApprovalRequest, JsonValue, ToolApprovalBody } from '@spine/protocol';
import {
  type ApprovalCheck,
  type ApprovalPolicy,
  type ApprovalRule,
  type EscalationRequest,
  matchApprovalRule,
} from '../approval.js';

/** Asks the person; `undefined` when nobody can be asked. */
export type Approver = (
  request: ApprovalRequest,
  options: { signal?: AbortSignal },
) => Promise<ApprovalAnswer>;

/** Reads an escalation request (`args.escalation = { justification, permissions }`), if any. */
export function escalationOf(args: JsonValue): EscalationRequest | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const value = args.escalation;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { justification, permissions } = value;
  if (typeof justification !== 'string') return undefined;
  if (typeof permissions !== 'object' || permissions === null || Array.isArray(permissions))
    return undefined;
  return { justification, permissions };
}

/**
 * The approval layer: deny-all, rules, hook verdicts, decisions remembered for the session,
 * the policy, and finally the person. It returns the `tool/approval` body; an escalation is never
 * allowed by a hook or a rule, so an allowed escalation was granted by approval.
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
  ): ToolApprovalBody | Promise<ToolApprovalBody> {
    const policyBy = this.policyBy();
    if (this.policy.name === 'deny-all')
      return this.done(
        toolCallId,
        check,
        false,
        policyBy,
        'policy',
        this.policy.decide(check).reason,
      );
    const escalation = check.escalation;
    const rule = this.rules.length === 0 ? undefined : matchApprovalRule(this.rules, check);
    if (rule?.decision === 'deny')
      return this.done(
        toolCallId,
        check,
        false,
        'rule',
        'rule',
        rule.reason ?? `denied by a rule for ${rule.tool}`,
      );
    if (!escalation && check.hookVerdict === 'allow')
      return this.done(toolCallId, check, true, 'hook', 'once', 'allowed by a pre-execute hook');
    if (!escalation && rule?.decision === 'allow' && check.hookVerdict !== 'ask') {
      return this.done(
        toolCallId,
        check,
        true,
        'rule',
        'rule',
        rule.reason ?? `allowed by a rule for ${rule.tool}`,
      );
    }
    const key = escalation
      ? `${check.toolName}\0${JSON.stringify(escalation.permissions)}`
      : check.toolName;
    if (this.remembered.size > 0 && this.remembered.has(key) && check.hookVerdict !== 'ask') {
      return this.done(
        toolCallId,
        check,
        true,
        'user',
        'session',
        'allowed for this session earlier',
      );
    }
    const verdict = this.policy.decide(check);
    if (verdict.decision === 'allow')
      return this.done(toolCallId, check, true, policyBy, 'policy', verdict.reason);
    if (verdict.decision === 'deny')
      return this.done(toolCallId, check, false, policyBy, 'policy', verdict.reason);
    if (!approve)
      return this.done(
        toolCallId,
        check,
        false,
        policyBy,
        'policy',
        `needs approval (${verdict.reason}), and nobody can be asked`,
      );
    const request: ApprovalRequest = {
      toolCallId,
      toolName: check.toolName,
      args: check.args,
      reason: verdict.reason,
    };
    if (escalation) request.escalation = escalation;
    return untilAborted(approve(request, signal ? { signal } : {}), signal).then(
      (answer) => {
        if (signal?.aborted)
          return this.done(
            toolCallId,
            check,
            false,
            'user',
            'once',
            'the run was aborted while waiting for approval',
          );
        if (answer === 'always') this.remembered.add(key);
        if (answer === 'deny')
          return this.done(
            toolCallId,
            check,
            false,
            'user',
            'once',
            `the person declined (${verdict.reason})`,
          );
        return this.done(
          toolCallId,
          check,
          true,
          'user',
          answer === 'always' ? 'session' : 'once',
          verdict.reason,
        );
      },
      (error: unknown) =>
        this.done(
          toolCallId,
          check,
          false,
          'user',
          'once',
          `approval failed: ${error instanceof Error ? error.message : String(error)}`,
        ),
    );
  }

  private cachedBy: { policy: ApprovalPolicy; by: string } | undefined;

  /** `policy:<name>`, built once per policy rather than once per call. */
  private policyBy(): string {
    if (this.cachedBy?.policy !== this.policy)
      this.cachedBy = { policy: this.policy, by: `policy:${this.policy.name}` };
    return this.cachedBy.by;
  }

  private done(
    toolCallId: string,
    check: ApprovalCheck,
    allowed: boolean,
    by: string,
    scope: ToolApprovalBody['scope'],
    reason: string,
  ): ToolApprovalBody {
    const body: ToolApprovalBody = {
      toolCallId,
      toolName: check.toolName,
      decision: allowed ? 'allow' : 'deny',
      by,
      scope,
      reason,
    };
    const escalation = check.escalation;
    if (escalation)
      body.escalation = {
        justification: escalation.justification,
        permissions: escalation.permissions,
      };
    return body;
  }
}

/** Resolves with the answer, or with `deny` once `signal` aborts (a UI that never answers cannot hang a cancelled run). */
function untilAborted(
  answer: Promise<ApprovalAnswer>,
  signal: AbortSignal | undefined,
): Promise<ApprovalAnswer> {
  if (!signal) return answer;
  if (signal.aborted) return Promise.resolve('deny');
  return new Promise<ApprovalAnswer>((resolve, reject) => {
    const onAbort = (): void => resolve('deny');
    signal.addEventListener('abort', onAbort, { once: true });
    answer.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
