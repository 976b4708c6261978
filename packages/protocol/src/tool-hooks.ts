import type { JsonValue } from './json.js';
import type { AnyToolDefinition, ToolExecutionContext, ToolOutput } from './tool.js';

/** The call a hook sees: the tool, its id and its parsed, validated arguments. */
export interface ToolHookCall {
  toolCallId: string;
  toolName: string;
  args: JsonValue;
  tool: AnyToolDefinition;
}

/** A `pre-execute` hook's verdict. `undefined` means "no opinion", and the chain goes on. */
export type PreExecuteVerdict =
  | { decision: 'allow'; reason?: string }
  | { decision: 'deny'; reason: string }
  | { decision: 'ask'; reason: string };

/**
 * Runs before approval; may allow, deny or ask. The first `deny` wins; `ask` goes to the
 * approval layer. Used by user hooks (`pre-tool-use` shell commands) and policies.
 */
export type PreExecuteHook = (
  call: ToolHookCall,
  context: ToolExecutionContext,
) => Promise<PreExecuteVerdict | undefined> | PreExecuteVerdict | undefined;

/**
 * Wraps execution (timeout, sandbox, tracing). Call `next()` to run the rest of the chain
 * and the tool itself.
 */
export type ExecuteWrapper = (
  call: ToolHookCall,
  context: ToolExecutionContext,
  next: () => Promise<ToolOutput>,
) => Promise<ToolOutput>;

/**
 * Runs after execution; may transform or annotate the output (for example append the
 * diagnostics of an edited file). Returning `undefined` keeps the output as it is.
 */
export type PostExecuteHook = (
  call: ToolHookCall,
  output: ToolOutput,
  context: ToolExecutionContext,
) => Promise<ToolOutput | undefined> | ToolOutput | undefined;

/** The three hook chains of the tool pipeline. */
export interface ToolHooks {
  preExecute?: PreExecuteHook[];
  execute?: ExecuteWrapper[];
  postExecute?: PostExecuteHook[];
}
