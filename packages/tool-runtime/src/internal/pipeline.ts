// Shared types of the per-call pipeline: parse → find → validate → pre-execute hooks → approval
// (prepare.ts) → execute chain with path locks, timeout and abort (execute.ts) → post-execute hooks,
// truncation and metadata (finalize.ts). Every stage returns synchronously when nothing in it is
// asynchronous, so a batch of cheap calls costs little more than the calls themselves.
import type {
  AnyToolDefinition,
  JsonValue,
  SandboxMode,
  ToolCallPart,
  ToolExecutionContext,
  ToolHookCall,
  ToolHooks,
  ToolOutput,
  ToolRunEvent,
} from '@spine/protocol';
import type { ApprovalCheck } from '../approval.js';
import type { ApprovalGate, Approver } from './approval-gate.js';
import type { KeyedLock } from './keyed-lock.js';
import type { ToolOutcome } from './results.js';
import type { ArgumentValidator } from './validate.js';

/** A registered tool with its compiled validator. */
export interface RegisteredTool {
  tool: AnyToolDefinition;
  validate: ArgumentValidator;
  /** The schema has an `escalation` property, so calls may ask for extra permissions. */
  escalates: boolean;
}

/** Everything the pipeline reads from the runtime (live: `sandbox` and the gate may change). */
export interface PipelineState {
  cwd: string;
  sandbox: SandboxMode;
  tools: Map<string, RegisteredTool>;
  hooks: Required<ToolHooks>;
  gate: ApprovalGate;
  /** The runtime's visibility rule, if any (checked first, so the common case costs nothing). */
  visibility: ((agent: string | undefined, tool: AnyToolDefinition) => boolean) | undefined;
  visible(agent: string | undefined, tool: AnyToolDefinition): boolean;
  maxResultChars: number;
  abortGraceMs: number;
  services: { [key: string]: unknown };
  pathLocks: KeyedLock;
}

/**
 * A call ready to run. It is also what hooks see (`ToolHookCall`) and what the approval policy
 * sees (`ApprovalCheck`): one object per call instead of three.
 */
export interface PreparedCall extends ToolHookCall, ApprovalCheck {
  call: ToolCallPart;
  entry: RegisteredTool;
  args: JsonValue;
  safe: boolean;
  paths: readonly string[];
  /** Context for hooks and the tool (its signal is the batch's unless the tool has a timeout). */
  context: ToolExecutionContext;
  granted?: { [key: string]: JsonValue };
}

/** What the batch gives the pipeline. */
export interface BatchContext {
  agent: string | undefined;
  signal: AbortSignal;
  emit: (event: ToolRunEvent) => void;
  approve: Approver | undefined;
  /** Mirrors `signal.aborted` as a plain field (the getter is measurably slower per call). */
  aborted: boolean;
  /** Registers running call `index` to be told when the batch aborts (one signal listener serves all). */
  track(index: number, target: { abort(): void }): void;
  /** Unregisters it. */
  untrack(index: number): void;
}

/** What execution produced, before post-processing. */
export interface ExecutedCall {
  prepared: PreparedCall;
  output: ToolOutput;
  outcome: ToolOutcome;
  durationMs: number;
  context: ToolExecutionContext;
}

/** A value now, or later. */
export type MaybePromise<T> = T | Promise<T>;

/** True when `value` is a thenable (a hook or stage that went asynchronous). */
export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as Promise<T> | undefined)?.then === 'function';
}
