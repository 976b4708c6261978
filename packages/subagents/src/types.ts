import type { Agent, SystemPrompt } from '@spine/agent-loop';
import type {
  ApprovalAnswer,
  ApprovalDecision,
  ApprovalRequest,
  ChildEndReason,
  CompactionEngine,
  ModelClient,
  RetryPolicy,
  SandboxMode,
  SessionLog,
  SessionStore,
  TokenMeter,
  ToolScheduler,
  Usage,
} from '@spine/protocol';
import type { ChangeToolNames } from './child-record.js';
import type { AgentProfile } from './profile.js';

/** Who a child is: its session, the call it answers, its profile and where it sits in the tree. */
export interface ChildInfo {
  /** The child's session id. */
  sessionId: string;
  /** The parent's `task` tool call the child answers. */
  toolCallId: string;
  /** The profile it runs with. */
  profile: AgentProfile;
  /** The short task description the parent model gave. */
  description: string;
  /** Nesting depth: 1 for a child of a top session. */
  depth: number;
  /** Its sandbox mode: the profile's, narrowed to the parent's. */
  sandbox: SandboxMode;
}

/** What {@link TaskToolOptions.createTools} is asked to build for one child. */
export interface ChildToolsRequest extends ChildInfo {
  /** The tool names the child may see: the profile's list within the parent's visible tools. */
  tools: readonly string[];
  /** The child's session (for tools that read it, such as `recall_history`). */
  session: SessionLog;
}

/** A model to run a child on. */
export interface ChildModel {
  /** The client. */
  model: ModelClient;
  /** The model id sent to the provider. */
  modelId: string;
  /** Its context window in tokens (default: the parent's `contextWindow` option). */
  contextWindow?: number;
}

/** An approval request a child needs, labelled with the child so the person knows who asks. */
export interface ChildApprovalRequest extends ApprovalRequest {
  /** The child asking. */
  child: ChildInfo;
}

/** Limits of one child; the profile's `maxSteps` applies when lower. */
export interface ChildLimits {
  /** Steps of the child's turn (default 50). */
  maxSteps?: number;
  /** Tokens (prompt, cached and output) the child may use before it is stopped (default: none). */
  maxTokens?: number;
  /** Wall-clock time in ms before the child is stopped (default 10 minutes). */
  timeoutMs?: number;
  /** Loop detection of the child's turn (see `AgentOptions.loops`; default: none). */
  loops?: import('@spine/agent-loop').AgentOptions['loops'];
}

/** Live progress of children, for a UI (one line per child with its current tool). */
export type ChildProgressEvent =
  | { type: 'start'; child: ChildInfo }
  | { type: 'tool'; child: ChildInfo; toolName: string; toolCallId: string }
  | { type: 'end'; child: ChildInfo; reason: ChildEndReason; usage: Usage };

/** Options of {@link createTaskTool}. */
export interface TaskToolOptions {
  /** The parent session; `agent/child/start` and `agent/child/end` are written here. */
  session: SessionLog;
  /** Where children are created: the parent's store. */
  store: SessionStore;
  /** The parent's tool scheduler: a child's tools are chosen among its visible tools. */
  tools: ToolScheduler;
  /**
   * Builds a child's tool scheduler for exactly `request.tools`, in `request.sandbox`, with the
   * parent's approval policy and network setting (or narrower). Whatever it returns, the child
   * only sees and runs `request.tools`.
   */
  createTools(request: ChildToolsRequest): ToolScheduler | Promise<ToolScheduler>;
  /** The parent's model: children run on it unless their profile names another. */
  model: ChildModel;
  /** Resolves a profile's `model` value; `undefined` keeps the parent's model. */
  resolveModel?(name: string): ChildModel | undefined;
  /**
   * Picks the model of one child ahead of everything else (a rerun answers each child from its
   * recorded outputs: {@link recordedChildren}).
   */
  childModel?(child: ChildInfo): ChildModel | undefined;
  /** The parent's sandbox mode now (a function when it can change during the session). */
  sandbox: SandboxMode | (() => SandboxMode);
  /** The parent's approval callback; a child's questions reach it labelled with the child. */
  approve?(
    request: ChildApprovalRequest,
    options: { signal?: AbortSignal },
  ): Promise<ApprovalAnswer | ApprovalDecision>;
  /** The profiles the model may choose from (default: the built-in `explore` and `general`). */
  profiles?: readonly AgentProfile[];
  /** Adds contributions (environment, instructions) to a child's system prompt. */
  preparePrompt?(prompt: SystemPrompt, child: ChildInfo): void;
  /** The child's own compaction engine (each child compacts its own context). */
  compaction?(session: SessionLog, child: ChildInfo): CompactionEngine | undefined;
  /** The child's token meter. */
  meter?(child: ChildInfo): TokenMeter | undefined;
  /** The retry policy of the child's requests. */
  retryPolicy?: RetryPolicy;
  /** Default context window of children, in tokens (default 128,000). */
  contextWindow?: number;
  /** Cap on output tokens per child request. */
  maxOutputTokens?: number;
  /** Default limits of every child. */
  limits?: ChildLimits;
  /**
   * The parent runtime's cap on a tool result, in characters (at least 1,000; default 30,000, the tool runtime's
   * default): a child's answer is cut to fit it so that the record of files changed and commands
   * run after it is never cut.
   */
  maxResultChars?: number;
  /** Read-only children running at once, at most (default 4). */
  maxParallel?: number;
  /** Depth of the parent session (0 for a top session). */
  depth?: number;
  /** Deepest child allowed (default 1: children cannot start children). */
  maxDepth?: number;
  /** The parent agent's name, whose tool visibility applies when listing the parent's tools. */
  agentName?: string;
  /** Which tools count as file changes and commands in the child's record. */
  changeTools?: ChangeToolNames;
  /** Live progress (not logged); called synchronously. */
  onProgress?(event: ChildProgressEvent): void;
  /** Called with each child agent before it runs (a UI may subscribe to its live events). */
  onChildAgent?(agent: Agent, child: ChildInfo): void;
}
