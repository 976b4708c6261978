// How the output of a hook command becomes a decision, per kind of hook event. The exit-code
// contract (0: no opinion unless stdout says otherwise; 2: block/deny with stderr as the reason)
// is the same for every event; `permission-request` fails closed (any other exit, a timeout or a
// command that cannot start denies), the others fail open with a warning.

import type { HookRunBody, PreExecuteVerdict } from '@spine/protocol';
import type { HookRunResult } from './hooks-shell-run.js';

/** What a `user-prompt-submit` hook decided. */
export type PromptHookDecision =
  | { decision: 'block'; reason: string }
  | { decision: 'rewrite'; prompt: string };

/** What a `permission-request` hook decided (`undefined`: ask the person as usual). */
export type PermissionHookDecision = { decision: 'allow' | 'deny'; reason: string };

const OUTPUT_LIMIT = 2_000;

function parsed(stdout: string): Record<string, unknown> | undefined {
  const text = stdout.trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function reasonOf(result: HookRunResult, fallback: string): string {
  const json = parsed(result.stdout);
  if (typeof json?.reason === 'string' && json.reason) return json.reason;
  return result.stderr.trim() || result.stdout.trim() || fallback;
}

/** A `pre-tool-use` verdict from the command's output (see `createShellHooks`). */
export function toolVerdictOf(result: HookRunResult): PreExecuteVerdict | undefined {
  const json = parsed(result.stdout);
  if (json) {
    const reason = typeof json.reason === 'string' ? json.reason : 'blocked by a pre-tool-use hook';
    if (json.decision === 'deny' || json.decision === 'ask')
      return { decision: json.decision, reason };
    if (json.decision === 'allow') return { decision: 'allow', reason };
  }
  if (result.exitCode === 2) {
    return { decision: 'deny', reason: reasonOf(result, 'blocked by a pre-tool-use hook') };
  }
  return undefined;
}

/**
 * A `user-prompt-submit` decision: exit 2 or `{"decision":"block","reason":…}` blocks the prompt;
 * `{"prompt":"…"}` replaces it; anything else lets it through unchanged.
 */
export function promptDecisionOf(result: HookRunResult): PromptHookDecision | undefined {
  const json = parsed(result.stdout);
  if (result.exitCode === 2 || json?.decision === 'block') {
    return { decision: 'block', reason: reasonOf(result, 'blocked by a user-prompt-submit hook') };
  }
  if (result.exitCode === 0 && typeof json?.prompt === 'string') {
    return { decision: 'rewrite', prompt: json.prompt };
  }
  return undefined;
}

/**
 * A `permission-request` decision, failing closed: `{"decision":"allow"|"deny"}` on exit 0
 * decides; exit 0 without one leaves the question to the person; exit 2 denies; any other exit,
 * a timeout or a command that could not run denies too.
 */
export function permissionDecisionOf(result: HookRunResult): PermissionHookDecision | undefined {
  if (result.timedOut) return { decision: 'deny', reason: 'the permission-request hook timed out' };
  if (result.exitCode === 0) {
    const json = parsed(result.stdout);
    if (json?.decision === 'allow' || json?.decision === 'deny') {
      return { decision: json.decision, reason: reasonOf(result, `${json.decision} by a hook`) };
    }
    return undefined;
  }
  if (result.exitCode === 2) {
    return { decision: 'deny', reason: reasonOf(result, 'denied by a permission-request hook') };
  }
  return {
    decision: 'deny',
    reason: `the permission-request hook failed (exit ${result.exitCode ?? 'by signal'}): ${result.stderr.trim().slice(0, 200)}`,
  };
}

function cut(text: string): { text: string; cut: boolean } {
  return text.length > OUTPUT_LIMIT
    ? { text: text.slice(0, OUTPUT_LIMIT), cut: true }
    : { text, cut: false };
}

/** The `hook/run` record of one command run. */
export function hookRunRecord(
  input: Pick<HookRunBody, 'event' | 'command' | 'durationMs' | 'decision'> & { reason?: string },
  result: HookRunResult,
): HookRunBody {
  const stdout = cut(result.stdout);
  const stderr = cut(result.stderr);
  const record: HookRunBody = {
    event: input.event,
    command: input.command,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: Math.round(input.durationMs),
    decision: input.decision,
    stdout: stdout.text,
    stderr: stderr.text,
  };
  if (input.reason !== undefined) record.reason = input.reason;
  if (stdout.cut || stderr.cut) record.truncated = true;
  return record;
}
