import { join } from 'node:path';
import type {
  AnyToolDefinition,
  CompactionEngine,
  JsonValue,
  ModelClient,
  SpineError,
  ToolRunOptions,
} from '@spine/protocol';
import type { Session } from '@spine/session-log';
import { configHome, type SpineConfig } from './config/schema.js';
import * as hookWiring from './hooks-wiring.js';
import { imageServices } from './images.js';
import { nextJobNumber } from './jobs/jobs-state.js';
import { wireJobs, workspaceToolsWithJobs } from './jobs/wiring.js';
import type { ResolvedModel } from './model-config.js';
import { createBudgetCheck, hasBudget } from './plan/budget.js';
import { syncPlanModePrompt } from './plan/plan-mode.js';
import { planContext } from './plan/plan-state.js';
import { createUpdatePlanTool } from './plan/plan-tool.js';

/** The base system rules of the reference agent. Stable text: it is the cached prompt prefix. */
export const BASE_PROMPT = `You are Spine, a careful coding agent working in the user's workspace.
Work in small verified steps: read before you edit, run the tests after you change code, and say plainly what you changed and what you could not do.
Retrieval order: a known path → read it; known text → grep; a known symbol → the language-server tools; only a concept → search.
Paths are relative to the workspace. Never try to leave it.`;

/** Options of {@link wireAgent}. */
export interface WireOptions {
  /** The effective configuration. */
  config: SpineConfig;
  /** The workspace (absolute). */
  cwd: string;
  /** The live session (created or opened by the caller). */
  session: Session;
  /** The model (from {@link resolveModel}, or a recorded one for rerun). */
  model: ResolvedModel;
  /** Answers `ask` approvals; without it `ask` becomes deny. */
  approve?: ToolRunOptions['approve'];
  /** Reports non-fatal problems (a hook failed, a tool family could not load). */
  onWarning?: (message: string) => void;
  /** Writes compaction summaries (default: the model itself, through the compaction package). */
  summarizer?: import('@spine/protocol').Summarizer;
  /** Load language-server tools (default: `config.lsp.enabled`). */
  lsp?: boolean;
  /** A rerun: subagents answer from their recordings (agents/rerun.ts). */
  childRecordings?: import('@spine/subagents').RecordedChildren;
  /** Load web tools (default: `config.web.enabled`). */
  web?: boolean;
  /** A recording whose MCP tools answer with their recorded results (rerun): no server starts. */
  mcpRecorded?: readonly import('@spine/protocol').SessionEvent[];
  /** The budget check (default: from the configuration's limits; a rerun's repeats the record). */
  budget?: import('@spine/agent-loop').BudgetCheck;
  /** Where background jobs' output goes. Default `<sessionDir>/<session id>.jobs`. */
  jobsDir?: string;
  /** A recording whose background-job calls answer with their recorded results (rerun). */
  jobsRecorded?: readonly import('@spine/protocol').SessionEvent[];
}

/** Everything a front end drives: the agent and the parts slash commands reach into. */
export interface WiredAgent {
  /** The agent: `run(text)` starts a turn, `resume()` finishes an interrupted one. */
  agent: import('@spine/agent-loop').Agent;
  /** The tool runtime (tool families load on first use). */
  runtime: import('@spine/tool-runtime').LazyToolRuntime;
  /** The system prompt (base rules, instructions, memory, environment). */
  prompt: import('@spine/agent-loop').SystemPrompt;
  /** Counts the tokens of requests (context pressure, compaction). */
  meter: import('@spine/compaction').SpineTokenMeter;
  /** The compaction engine (automatic, or `compact()` on demand). */
  compaction: CompactionEngine;
  /** The configured shell hooks (`fire(event, data)`). */
  hooks: import('@spine/tool-runtime').ShellHooks;
  /** The model the agent calls. */
  model: ResolvedModel;
  /** Names of the tool families that loaded (`workspace`, `recall`, `memory`, `web`, `lsp`). */
  families: string[];
  /** Cross-session memory, when `memory.enabled`: the files and what the session loaded. */
  memory?: import('./memory/memory-wiring.js').WiredMemory;
  /** MCP servers, when configured (or recorded MCP tools in a rerun). */
  mcp?: import('./mcp/wiring.js').WiredMcp;
  /** Shuts language servers down. The session stays open (the caller closes it). */
  close(): Promise<void>;
  /** Workspace checkpoints, unless `rewind.checkpoints` is off. */
  checkpoints?: import('./rewind/wiring.js').WiredCheckpoints;
  /** The session's background jobs (`/jobs`, `/kill`, the status line). */
  jobs: import('./jobs/wiring.js').WiredJobs;
}

/**
 * Builds the agent for a session from configuration: tool runtime with workspace, web, LSP,
 * recall and memory tools, user hooks on the runtime's hook chains, project instructions,
 * cross-session memory and the environment in the system prompt, token meter and compaction.
 *
 * @throws a {@link SpineError} when a required part (tool runtime, agent) cannot be built.
 */
export async function wireAgent(options: WireOptions): Promise<WiredAgent> {
  const { config, cwd, session, model } = options;
  const warn = options.onWarning ?? (() => {});
  // The heavy packages load here, not when the harness is imported (cold start of every command).
  const [agentLoop, toolRuntime, compactionPkg, llm] = await Promise.all([
    import('@spine/agent-loop'),
    import('@spine/tool-runtime'),
    import('@spine/compaction'),
    import('@spine/llm'),
  ]);

  const network = config.shell.network;
  // The domain proxy judges every resolved address with web-tools' policy when it loads.
  const addressPolicy =
    network !== 'off' ? await import('@spine/web-tools').catch(() => undefined) : undefined;
  const backend = await toolRuntime.detectSandbox({
    unixSockets: config.shell.unixSockets,
    // Credential locations are hidden, with Spine's own MCP OAuth tokens wherever they live.
    credentialPaths: config.shell.allowCredentials
      ? false
      : [...toolRuntime.DEFAULT_CREDENTIAL_PATHS, join(configHome(process.env), 'mcp-oauth')],
    ...(config.protectedPaths !== undefined ? { protectedPaths: config.protectedPaths } : {}),
    ...(network !== 'off'
      ? {
          network: addressPolicy
            ? { checkAddress: (address: string) => addressPolicy.isRefusedAddress(address)?.detail }
            : {},
        }
      : {}),
  });
  // Commands and hooks get the configured environment; key variables are never passed.
  const shellEnv = toolRuntime.createShellEnv(process.env, {
    ...config.shell.env,
    neverPass: [
      ...new Set(
        [config.apiKeyEnv, model.apiKeyEnv, ...Object.values(llm.DEFAULT_KEY_VARIABLES)].filter(
          (name): name is string => typeof name === 'string',
        ),
      ),
    ],
  });
  const hooks = toolRuntime.createShellHooks({
    cwd,
    env: shellEnv,
    hooks: config.hooks,
    sessionId: () => session.id,
    onWarning: warn,
    // Hooks run under the same OS sandbox and mode as the agent's shell commands.
    run: toolRuntime.createSandboxedHookRunner({ backend, mode: () => runtime.sandbox }),
    onRun: hookWiring.recordHookRuns(session),
  });
  // Hook runs fired in the background (subagent-start/-stop), awaited when the session closes.
  const background = new Set<Promise<unknown>>();
  // `permission-request` hooks answer before a person is asked (hooks-wiring.ts).
  const approve = hookWiring.approveWithHooks(hooks, options.approve);

  // Tool families load now (module imports); their objects are built on first use.
  const families: string[] = ['workspace', 'recall'];
  // Memory files are read once, here: writes during the session apply from the next one.
  const memory = config.memory.enabled
    ? (await import('./memory/memory-wiring.js')).wireMemory({
        cwd,
        userFile: config.memory.userFile,
        sessionId: () => session.id,
        approval: config.approval,
      })
    : undefined;
  if (memory) families.push('memory');
  let webTools: typeof import('@spine/web-tools') | undefined;
  if (options.web ?? config.web.enabled) {
    try {
      webTools = await import('@spine/web-tools');
      families.push('web');
    } catch (error) {
      warn(`web tools not loaded: ${(error as Error).message}`);
    }
  }
  let lspTools: typeof import('@spine/lsp-tools') | undefined;
  if (options.lsp ?? config.lsp.enabled) {
    try {
      lspTools = await import('@spine/lsp-tools');
      families.push('lsp');
    } catch (error) {
      warn(`language-server tools not loaded: ${(error as Error).message}`);
    }
  }

  // Background jobs: output beside the session, ids continuing after a resumed session's last.
  const dir = options.jobsDir ?? join(config.sessionDir, `${session.id}.jobs`);
  const jobManager = toolRuntime.createJobManager({ dir, firstNumber: nextJobNumber(session) });
  let lspManager: import('@spine/lsp-tools').LspManager | undefined;
  let taskTool: AnyToolDefinition | undefined; // subagents (agents/wiring.ts), set below
  const runtime = toolRuntime.createLazyToolRuntime({
    sandbox: config.sandbox,
    ...(memory ? { mapApproval: memory.mapApproval } : {}),
    build: () => {
      const { exclude } = config.tools; // sessionId: a resume finds commands a crash left running
      const workspace = { cwd, env: shellEnv, network, exclude, sessionId: () => session.id };
      const tools: AnyToolDefinition[] = [
        ...workspaceToolsWithJobs(toolRuntime, workspace, jobManager, options.jobsRecorded),
        compactionPkg.createRecallHistoryTool({ session }) as unknown as AnyToolDefinition,
      ];
      if (memory) tools.push(memory.tool as unknown as AnyToolDefinition);
      tools.push(createUpdatePlanTool(toolRuntime.defineTool));
      const built = toolRuntime.createToolRuntime({
        cwd,
        tools,
        sandbox: config.sandbox,
        // The policy in force: `/approval` may have changed it before the runtime was built.
        approval: memory ? memory.approval.policy : config.approval,
        hooks: hooks.toolHooks,
        ...(backend ? { sandboxBackend: backend } : {}),
        // The same protected paths the sandbox binds read-only need a person for file-tool writes;
        // project memory is written by remember under its own approval mapping.
        protectedPaths:
          config.protectedPaths === false
            ? []
            : (config.protectedPaths ?? toolRuntime.DEFAULT_PROTECTED_PATHS),
        ...(memory ? { protectedPathWriters: memory.protectedPathWriters } : {}),
        // `read` of an image file returns it as image content when the model in use accepts
        // images (asked at each call: `/model` and ACP switch it by assigning to `model`).
        services: imageServices(session, () => model.acceptsImages),
      });
      if (webTools) {
        try {
          const web = webTools.createWebRuntime({
            providers: webTools.webProvidersFromEnv(process.env),
          });
          for (const tool of webTools.createWebTools(web))
            built.register(tool as AnyToolDefinition);
        } catch (error) {
          warn(`web tools not registered: ${(error as Error).message}`);
        }
      }
      if (lspTools) {
        try {
          lspManager = lspTools.createLspManager({ cwd });
          for (const tool of lspTools.createLspTools(lspManager))
            built.register(tool as AnyToolDefinition);
          built.hooks.postExecute.push(lspTools.createDiagnosticsHook(lspManager));
        } catch (error) {
          warn(`language-server tools not registered: ${(error as Error).message}`);
        }
      }
      // After the user's pre-tool-use hooks: a user-memory write asks even if one allowed it.
      if (memory) built.hooks.preExecute.push(memory.approval.hook);
      if (taskTool) built.register(taskTool);
      return built;
    },
  });

  const prompt = new agentLoop.SystemPrompt(BASE_PROMPT);
  prompt.register(agentLoop.createEnvironmentContribution({ cwd, sandbox: () => runtime.sandbox }));
  const instructions = config.instructions.enabled
    ? agentLoop.createInstructionsContribution({ cwd, userFile: config.instructions.userFile })
    : undefined;
  if (instructions) prompt.register(instructions);
  syncPlanModePrompt(prompt, config.approval);
  // The current plan, as a runtime context once a compaction folded its tool result away.
  prompt.register({ id: 'plan', contexts: planContext(session) });
  if (memory?.section)
    prompt.register({
      id: 'memory',
      sections: [{ id: 'memory', text: memory.section, order: 60 }],
    });

  // DeepSeek's own tokenizer when its optional package is installed (spine doctor says how), else o200k.
  const meter = compactionPkg.createTokenMeter({
    tokenizer: 'auto',
    // Images are counted by the provider's published rule.
    imageTokens: model.provider === 'anthropic' ? 'anthropic' : 'openai',
  });
  const high = config.compaction.threshold;
  const engine = compactionPkg.createCompactionEngine({
    meter,
    summarizer:
      options.summarizer ??
      compactionPkg.createModelSummarizer({ model: model.client, modelId: model.modelId }),
    thresholds: { high, soft: Math.min(0.65, high), low: Math.min(0.45, high * 0.6) },
    auto: config.compaction.auto,
    background: config.compaction.background,
    // `pre-compact` hooks run when the engine has decided to compact, by its own thresholds.
    async onBeforeCompact({ reason, focus }) {
      const payload: Record<string, JsonValue> = { reason };
      if (focus) payload.focus = focus;
      await hooks.fire('pre-compact', payload);
    },
  });
  const compaction = engine;
  // Subagents: the task tool, registered when the runtime is built (agents/wiring.ts).
  taskTool = await (await import('./agents/wiring.js')).wireSubagents({
    ...{ config, cwd, session, runtime, model, warn, shellEnv, network, backend, hooks },
    background: (run: Promise<unknown>) => {
      background.add(run);
      void run.finally(() => background.delete(run));
    },
    ...{ toolRuntime, compactionPkg, agentLoop, instructions, meter, approve },
    ...(options.summarizer ? { summarizer: options.summarizer } : {}),
    ...(options.childRecordings ? { recorded: options.childRecordings } : {}),
    // The parent's web and language-server tools, for children whose profile names them.
    extraTools: () =>
      [
        ...(webTools?.createWebTools(
          webTools.createWebRuntime({ providers: webTools.webProvidersFromEnv(process.env) }),
        ) ?? []),
        ...(lspTools && lspManager ? lspTools.createLspTools(lspManager) : []),
      ] as AnyToolDefinition[],
  });

  // Workspace checkpoints before steps that may change files (rewind/wiring.ts).
  const checkpoints = await (await import('./rewind/wiring.js')).wireCheckpoints({
    ...{ config, cwd, warn, sandbox: () => runtime.sandbox },
  });

  const agent = agentLoop.createAgent({
    session,
    model: model.client,
    modelId: model.modelId,
    contextWindow: model.contextWindow,
    tools: runtime,
    systemPrompt: prompt,
    compaction,
    retryPolicy: llm.createRetryPolicy(),
    meter,
    maxSteps: config.maxSteps,
    loops: config.loops.enabled ? config.loops : false,
    ...(config.reasoning
      ? {
          reasoning: {
            enabled: config.reasoning.enabled ?? true,
            ...(config.reasoning.effort ? { effort: config.reasoning.effort } : {}),
          },
        }
      : {}),
    ...(approve ? { approve } : {}),
    ...(options.budget
      ? { budget: options.budget }
      : hasBudget(config)
        ? { budget: createBudgetCheck(session, config) }
        : {}),
    ...(checkpoints
      ? { beforeTools: checkpoints.beforeTools, beforeTurnEnd: checkpoints.beforeTurnEnd }
      : {}),
  });

  hookWiring.wireAgentHooks(agent, hooks);
  // Jobs recorded, in the runtime context, their ends and a crash's leftovers told to the model.
  const jobs = wireJobs({ session, manager: jobManager, agent, prompt, toolRuntime });

  // MCP loads only when servers are configured (the SDK is heavy) or a rerun replays their results.
  const mcp =
    options.mcpRecorded !== undefined || Object.keys(config.mcp.servers).length > 0
      ? await (await import('./mcp/wiring.js')).wireMcp({
          config,
          cwd,
          backend,
          runtime,
          agent,
          warn,
          prompt,
          session,
          model: () => ({ client: model.client, modelId: model.modelId }),
          ...(options.mcpRecorded ? { recorded: options.mcpRecorded } : {}),
        })
      : undefined;

  return {
    agent,
    runtime,
    prompt,
    meter,
    compaction,
    hooks,
    model,
    families,
    ...(memory ? { memory } : {}),
    ...(mcp ? { mcp } : {}),
    ...(checkpoints ? { checkpoints } : {}),
    jobs,
    async close() {
      // Exit kills the jobs (each recorded as `job/end` with `by: "exit"`).
      await jobs.close();
      await Promise.allSettled([...background]);
      await mcp?.close();
      await lspManager?.shutdown();
    },
  };
}

/** A model resolved from a client that needs no configuration (recorded outputs, tests). */
export function fixedModel(
  client: ModelClient,
  modelId: string,
  contextWindow = 128_000,
): ResolvedModel {
  return {
    client,
    provider: client.provider,
    modelId,
    contextWindow,
    apiKeyEnv: undefined,
    baseUrl: undefined,
    acceptsImages: true,
  };
}
