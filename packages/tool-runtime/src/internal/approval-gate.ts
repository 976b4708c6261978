import type {
  ApprovalAnswer,
  ApprovalDecision,
  ApprovalRequest,
  JsonValue,
  ToolApprovalBody,
  ToolOutput,
} from '@spine/protocol';
import type {
  ApprovalCheck,
  ApprovalPolicy,
  ApprovalRule,
  ApprovalVerdict,
  EscalationRequest,
} from '../approval.js';
import { isPlanModeRefusal } from '../approval.js';
import { evaluateApprovalRules, type RuleOutcome } from '../command-rules.js';
import { isProtectedPath } from '../protected-paths.js';
import { loadShellParser, shellParserIfLoaded } from '../shell-command-parse.js';
import { describeAnswer, readApprovalAnswer, readApprovalDecision } from './approval-answer.js';
import { protectedTargets } from './protected-targets.js';

/** Asks the person; `undefined` when nobody can be asked. */
export type Approver = (
  request: ApprovalRequest,
  options: { signal?: AbortSignal },
) => Promise<ApprovalAnswer | ApprovalDecision>;

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

/** Settings of the gate besides the policy and the rules. */
export interface ApprovalGateOptions {
  /** Workspace root (real path), to tell which file writes touch protected paths. */
  cwd: string;
  /** Globs of protected workspace paths; empty turns the protection off. */
  protectedPaths: readonly string[];
  /** Protected globs a tool may write under the policy, by tool name (its own mapping governs them). */
  protectedPathWriters: { readonly [toolName: string]: readonly string[] };
  /** How long the approver may take before its silence counts as a denial; none when undefined. */
  timeoutMs: number | undefined;
}

/** A call its tool's precheck refused just before a person would have been asked. */
export interface PrecheckRefusal {
  /** The tool's error output. */
  refused: ToolOutput;
}

type Decided =
  | ToolApprovalBody
  | PrecheckRefusal
  | Promise<ToolApprovalBody>
  | Promise<ToolApprovalBody | PrecheckRefusal>;

/**
 * The approval layer: deny-all, rules, hook verdicts, decisions remembered for the session,
 * the policy, and finally the person. It returns the `tool/approval` body; an escalation is never
 * allowed by a hook or a rule, so an allowed escalation was granted by approval.
 *
 * It fails closed: only the answers `once` and `always` run a call. Any other value, an exception,
 * a timeout or an abort while waiting denies it, with the reason recorded. A policy that throws or
 * returns something other than a verdict denies too. A write to a protected path needs a person's
 * answer whatever the rules, hooks, earlier `always` answers or the policy say.
 */
export class ApprovalGate {
  private readonly remembered = new Set<string>();

  constructor(
    public policy: ApprovalPolicy,
    public rules: readonly ApprovalRule[],
    private readonly options: ApprovalGateOptions,
  ) {}

  decide(
    toolCallId: string,
    check: ApprovalCheck,
    approve: Approver | undefined,
    signal: AbortSignal | undefined,
    precheck?: () => Promise<ToolOutput | undefined>,
  ): Decided {
    const policyBy = this.policyBy();
    if (this.policy.name === 'deny-all')
      return done(toolCallId, check, false, policyBy, 'policy', this.verdict(check).reason);
    // Plan mode is a ceiling: no rule, hook, remembered answer or wrapper may lift it.
    const planRefusal = this.policy.name === 'plan' ? isPlanModeRefusal(check) : undefined;
    if (planRefusal) return done(toolCallId, check, false, policyBy, 'policy', planRefusal.reason);
    let outcome: RuleOutcome | undefined;
    if (this.rules.length > 0) {
      const parser = shellParserIfLoaded();
      if (!parser && check.permissions.executes)
        return loadShellParser().then(
          () => this.decide(toolCallId, check, approve, signal, precheck),
          (error: unknown) =>
            done(
              toolCallId,
              check,
              false,
              'rule',
              'rule',
              `the rules could not be applied: ${messageOf(error)}`,
            ),
        );
      try {
        outcome = evaluateApprovalRules(this.rules, check, parser);
      } catch (error) {
        // A rule that cannot be applied (a bad pattern) must not let the call through.
        return done(
          toolCallId,
          check,
          false,
          'rule',
          'rule',
          `the rules could not be applied: ${messageOf(error)}`,
        );
      }
    }
    if (outcome?.decision === 'deny')
      return done(toolCallId, check, false, 'rule', 'rule', outcome.reason);
    const escalation = check.escalation;
    const guarded = this.protectedReason(check);
    const needsPerson = guarded ?? (outcome?.decision === 'ask' ? outcome.reason : undefined);
    if (needsPerson === undefined) {
      if (!escalation && check.hookVerdict === 'allow')
        return done(toolCallId, check, true, 'hook', 'once', 'allowed by a pre-execute hook');
      if (!escalation && outcome?.decision === 'allow' && check.hookVerdict !== 'ask')
        return done(toolCallId, check, true, 'rule', 'rule', outcome.reason);
    }
    const key = escalation
      ? `${check.toolName}\0${JSON.stringify(escalation.permissions)}`
      : check.toolName;
    if (
      needsPerson === undefined &&
      this.remembered.size > 0 &&
      this.remembered.has(key) &&
      check.hookVerdict !== 'ask'
    )
      return done(toolCallId, check, true, 'user', 'session', 'allowed for this session earlier');
    let verdict = this.verdict(check);
    if (verdict.decision === 'deny')
      return done(toolCallId, check, false, policyBy, 'policy', verdict.reason);
    if (needsPerson !== undefined) {
      if (this.policy.name === 'never-ask')
        return done(
          toolCallId,
          check,
          false,
          policyBy,
          'policy',
          `${needsPerson}; that needs a person's approval, and the never-ask policy never asks`,
        );
      verdict = { decision: 'ask', reason: needsPerson };
    }
    if (verdict.decision === 'allow')
      return done(toolCallId, check, true, policyBy, 'policy', verdict.reason);
    if (!approve)
      return done(
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
    if (guarded !== undefined) request.personOnly = true;
    // A protected write is asked every time: an `always` answer is not remembered for it.
    const rememberable = guarded === undefined;
    // Arguments the tool would refuse are refused before anyone is asked; a protected write is
    // still put to a person every time, whatever its arguments.
    if (precheck && guarded === undefined)
      return precheck().then(
        (refused): ToolApprovalBody | PrecheckRefusal | Promise<ToolApprovalBody> =>
          refused
            ? { refused }
            : this.askPerson(toolCallId, check, request, approve, signal, {
                key,
                rememberable,
                reason: verdict.reason,
              }),
      );
    return this.askPerson(toolCallId, check, request, approve, signal, {
      key,
      rememberable,
      reason: verdict.reason,
    });
  }

  /** Asks the person and turns the answer into the `tool/approval` body, remembering `always`. */
  private askPerson(
    toolCallId: string,
    check: ApprovalCheck,
    request: ApprovalRequest,
    approve: Approver,
    signal: AbortSignal | undefined,
    how: { key: string; rememberable: boolean; reason: string },
  ): Promise<ToolApprovalBody> {
    const { key, rememberable } = how;
    return this.ask(request, approve, signal).then((answer) => {
      const reason = how.reason;
      const by = answer.by ?? 'user';
      if (answer.kind === 'denied')
        return done(toolCallId, check, false, by, 'once', answer.why(reason));
      if (answer.value === 'always' && rememberable) this.remembered.add(key);
      const scope = answer.value === 'always' && rememberable ? 'session' : 'once';
      return done(toolCallId, check, true, by, scope, answer.reason ?? reason);
    });
  }

  /** Asks the approver; resolves with an allow answer or with why the call is denied. Never rejects. */
  private ask(
    request: ApprovalRequest,
    approve: Approver,
    signal: AbortSignal | undefined,
  ): Promise<AskResult> {
    return new Promise<AskResult>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (result: AskResult): void => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const onAbort = (): void =>
        finish(denied(() => 'the run was aborted while waiting for approval'));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      const timeoutMs = this.options.timeoutMs;
      if (timeoutMs !== undefined)
        timer = setTimeout(
          () =>
            finish(denied((why) => `no answer within ${timeoutMs} ms (${why}), so it is denied`)),
          timeoutMs,
        );
      let pending: unknown;
      try {
        pending = approve(request, signal ? { signal } : {});
      } catch (error) {
        return finish(denied(() => `approval failed: ${messageOf(error)}`));
      }
      Promise.resolve(pending).then(
        (value: unknown) => {
          if (signal?.aborted) return onAbort();
          const answer = readApprovalAnswer(value);
          if (answer) return finish({ kind: 'allowed', value: answer });
          const decision = readApprovalDecision(value);
          if (decision?.answer === 'once')
            return finish({
              kind: 'allowed',
              value: 'once',
              by: decision.by,
              reason: decision.reason,
            });
          if (decision)
            return finish({
              kind: 'denied',
              by: decision.by,
              why: (why) => decision.reason ?? `denied by ${decision.by} (${why})`,
            });
          if (value === 'deny') return finish(denied((why) => `the person declined (${why})`));
          finish(
            denied(
              () =>
                `the approver answered ${describeAnswer(value)}, which is not an allow answer ('once' or 'always'), so the call is denied`,
            ),
          );
        },
        (error: unknown) => finish(denied(() => `approval failed: ${messageOf(error)}`)),
      );
    });
  }

  private cachedBy: { policy: ApprovalPolicy; by: string } | undefined;

  /** `policy:<name>`, built once per policy rather than once per call. */
  private policyBy(): string {
    if (this.cachedBy?.policy !== this.policy)
      this.cachedBy = { policy: this.policy, by: `policy:${this.policy.name}` };
    return this.cachedBy.by;
  }

  /** The policy's verdict, checked at run time: a throw or a malformed verdict is a denial. */
  private verdict(check: ApprovalCheck): ApprovalVerdict {
    let verdict: unknown;
    try {
      verdict = this.policy.decide(check);
    } catch (error) {
      return { decision: 'deny', reason: `the approval policy failed: ${messageOf(error)}` };
    }
    if (typeof verdict === 'object' && verdict !== null) {
      const { decision, reason } = verdict as { decision?: unknown; reason?: unknown };
      if (decision === 'allow' || decision === 'deny' || decision === 'ask')
        return typeof reason === 'string'
          ? (verdict as ApprovalVerdict)
          : { decision, reason: 'no reason given' };
    }
    return {
      decision: 'deny',
      reason: `the approval policy returned ${describeAnswer(verdict)}, which is not a verdict, so the call is denied`,
    };
  }

  /** Why this call needs a person because it writes a protected path, or `undefined`. */
  private protectedReason(check: ApprovalCheck): string | undefined {
    if (!check.permissions.writesFiles || check.sandbox === 'danger-full-access') return undefined;
    if (this.options.protectedPaths.length === 0) return undefined;
    const paths = (check as { paths?: readonly string[] }).paths;
    if (!paths || paths.length === 0) return undefined;
    const own = Object.hasOwn(this.options.protectedPathWriters, check.toolName)
      ? this.options.protectedPathWriters[check.toolName]
      : undefined;
    const hits = protectedTargets(this.options.cwd, paths, this.options.protectedPaths).filter(
      (hit) => !own || !isProtectedPath(hit, own),
    );
    if (hits.length === 0) return undefined;
    return `writes ${hits.join(', ')}, a protected path whose content can become code that other commands run`;
  }
}

/** `by` and `reason` are set when someone other than the person decided. */
type AskResult =
  | { kind: 'allowed'; value: 'once' | 'always'; by?: string; reason?: string | undefined }
  | { kind: 'denied'; why: (reason: string) => string; by?: string; reason?: undefined };

function denied(why: (reason: string) => string): AskResult {
  return { kind: 'denied', why };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function done(
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
