import type { ToolResultMeta } from './events.js';
import type { ImagePart } from './images.js';
import type { JsonValue } from './json.js';
import type { ToolSpec } from './tool-spec.js';

/** Sandbox modes, from most to least restrictive. */
export type SandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access';

/** What a tool may touch; the approval and sandbox layers read it. */
export interface ToolPermissions {
  /** The tool changes files. */
  writesFiles?: boolean;
  /** The tool runs commands. */
  executes?: boolean;
  /** The tool reaches the network. */
  network?: boolean;
}

/** Everything a tool's `execute` receives besides its arguments. */
export interface ToolExecutionContext {
  /** The id of the tool call being answered. */
  callId: string;
  /** Aborts on cancellation or timeout; a tool must stop promptly when it fires. */
  signal: AbortSignal;
  /** The workspace root (absolute, real path). */
  cwd: string;
  /** The sandbox mode in force. */
  sandbox: SandboxMode;
  /** Extra sandbox permissions granted to this call by approval (escalation), if any. */
  grantedPermissions?: { [key: string]: JsonValue };
  /** Reports progress to live listeners (not logged one by one). */
  onProgress?: (progress: { message?: string; data?: JsonValue }) => void;
  /** Per-session services tools may share (for example a read-state tracker). */
  services?: { [key: string]: unknown };
}

/** What a tool returns: content exactly as the model will see it, plus metadata. */
export interface ToolOutput {
  /** Rendered content for the model. */
  content: string;
  /** True when the content describes a failure the model should react to. */
  isError?: boolean;
  /** Metadata for the log (source path or URL, content type, provider …). */
  meta?: ToolResultMeta;
  /** Images for the model after the text, stored through the session's `ImageService` first. */
  images?: ImagePart[];
}

/**
 * A tool: the model-facing spec plus runtime attributes. Packages that ship tools
 * (web-tools, lsp-tools, compaction) export these; `@spine/tool-runtime` runs them.
 *
 * Contract: `execute` receives arguments already validated against `spec.parameters`.
 * Failures the model should see are returned with `isError: true`; a thrown error is
 * caught by the runtime and rendered as an error result.
 */
export interface ToolDefinition<Args = Record<string, unknown>> {
  /** What the model sees. */
  spec: ToolSpec;
  /** Runs the tool. */
  execute(args: Args, context: ToolExecutionContext): Promise<ToolOutput>;
  /** Per-call time limit in ms; the runtime aborts the call's signal when it passes. */
  timeoutMs?: number;
  /** True only when calls may run in parallel with other safe calls. Default false. */
  isConcurrencySafe?: boolean | ((args: Args) => boolean);
  /** What the tool may touch. */
  permissions?: ToolPermissions;
  /** Paths a call mutates, so the runtime can serialise calls on the same path. */
  mutatedPaths?: (args: Args) => string[];
  /**
   * Refuses arguments the tool would refuse anyway, before hooks run or anyone is asked to approve
   * the call: an error output ends the call as if `execute` had returned it; `undefined` lets it
   * go on. Runs once every earlier call of the batch is committed, with the call's context.
   */
  precheck?: (
    args: Args,
    context: ToolExecutionContext,
  ) => Promise<ToolOutput | undefined> | ToolOutput | undefined;
}

/**
 * A tool of any argument type, as registries and schedulers hold them. `execute` takes its
 * arguments contravariantly, so only `never` accepts every `ToolDefinition<Args>`; this names it.
 */
export type AnyToolDefinition = ToolDefinition<never>;
