import type { ToolApprovalBody, ToolResultBody } from './events.js';
import type { JsonValue } from './json.js';
import type { ToolCallPart } from './messages.js';
import type { ToolSpec } from './tool-spec.js';

/** Progress and bookkeeping the scheduler reports while it runs a batch. */
export type ToolRunEvent =
  | { type: 'approval'; body: ToolApprovalBody }
  | { type: 'started'; toolCallId: string; toolName: string; arguments: string }
  | { type: 'progress'; toolCallId: string; message?: string; data?: JsonValue }
  | { type: 'result'; body: ToolResultBody };

/** A question the approval layer puts to the person, answered by a UI. */
export interface ApprovalRequest {
  toolCallId: string;
  toolName: string;
  /** Parsed arguments. */
  args: JsonValue;
  /** Why approval is needed. */
  reason: string;
  /** Extra sandbox permissions the tool asks for, with its justification. */
  escalation?: { justification: string; permissions: { [key: string]: JsonValue } };
  /**
   * True when only a person may allow this call (a write to a protected path): an automated
   * answerer such as a `permission-request` hook may deny it but must not allow it.
   */
  personOnly?: boolean;
}

/** The person's answer to an {@link ApprovalRequest}. */
export type ApprovalAnswer = 'once' | 'always' | 'deny';

/**
 * An answer given by something other than the person (a `permission-request` hook), recorded as
 * `by` (e.g. `hook:permission-request`) and `reason` in `tool/approval`. `always` is not offered:
 * an automated answer is never remembered for the session.
 */
export interface ApprovalDecision {
  /** Whether the call runs (once) or is denied. */
  answer: 'once' | 'deny';
  /** Who decided, recorded as the approval's `by`. */
  by: string;
  /** Why, recorded as the approval's `reason`. */
  reason?: string;
}

/** Options of {@link ToolScheduler.run}. */
export interface ToolRunOptions {
  /** One signal reaches every tool of the batch. */
  signal?: AbortSignal;
  /**
   * Called synchronously, in the model's call order for `approval`, `started` and `result`:
   * `started` before the tool executes, `result` strictly in call order. The agent loop
   * appends the matching session events here.
   */
  onEvent?: (event: ToolRunEvent) => void;
  /**
   * Answers `ask` decisions; without it, `ask` becomes deny. An {@link ApprovalDecision} names
   * another decider than the person (recorded as `by`).
   */
  approve?: (
    request: ApprovalRequest,
    options: { signal?: AbortSignal },
  ) => Promise<ApprovalAnswer | ApprovalDecision>;
  /** The agent whose visibility rules apply. */
  agent?: string;
}

/**
 * Runs one assistant message's tool calls. `@spine/tool-runtime` implements it.
 *
 * Contract: every call gets exactly one result, in call order, whatever order they finish
 * in. Unknown tools, invalid arguments, denials, timeouts and tool failures become error
 * results, never exceptions. Only a bug in the scheduler itself throws.
 */
export interface ToolScheduler {
  /** Interface version. */
  readonly specificationVersion: 1;
  /** Specs of the tools visible to `agent`, in a stable order. */
  specs(agent?: string): ToolSpec[];
  /** Runs the calls and resolves with their results in call order. */
  run(calls: readonly ToolCallPart[], options?: ToolRunOptions): Promise<ToolResultBody[]>;
}
