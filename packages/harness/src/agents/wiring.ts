// The agent's subagents: profiles from the built-ins, the user's ~/.spine/agents and the project's
// .spine/agents, and the `task` tool for the parent's runtime. A child's tool runtime is built
// the way wire.ts builds the parent's (workspace tools and recall, same hooks, OS sandbox backend
// and protected paths), for the child's sandbox mode and the parent's approval policy in force.

import { lstat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  type AnyToolDefinition,
  type SessionLog,
  type Summarizer,
  type ToolRunOptions,
  visibleText,
} from '@spine/protocol';
import type { AgentProfile } from '@spine/subagents';
import type {
  ApprovalPolicy,
  ApprovalPolicyName,
  SandboxBackend,
  ShellHooks,
  ToolRuntime,
} from '@spine/tool-runtime';
import type { SpineConfig } from '../config/schema.js';
import type { ResolvedModel } from '../model-config.js';
import { writeSessionIndex } from '../session-index.js';
import { childMonitorFor } from './monitor.js';

/** Where profile files are read from, lowest precedence first. */
export function profileDirs(cwd: string, env: NodeJS.ProcessEnv = process.env): string[] {
  return [join(env.HOME ?? homedir(), '.spine', 'agents'), join(cwd, '.spine', 'agents')];
}

/**
 * The built-in profiles plus every valid profile file; an invalid file is reported and skipped.
 * Warnings quote file names and contents a project chose, so they reach `onWarning` with control
 * and escape sequences made visible.
 */
export async function loadCliProfiles(
  cwd: string,
  warn: (message: string) => void,
): Promise<AgentProfile[]> {
  const onWarning = (message: string): void => warn(visibleText(message));
  const subagents = await import('@spine/subagents');
  const layers: AgentProfile[][] = [];
  const [userDir, projectDir] = profileDirs(cwd);
  // The user's own directory may link to profiles kept elsewhere; a project's may not (whoever
  // controls the repository writes it, and a link would read files outside it).
  const dirs: [string, 'follow' | 'refuse'][] = [
    [userDir as string, 'follow'],
    [projectDir as string, 'refuse'],
  ];
  for (const [dir, symlinks] of dirs) {
    try {
      if (symlinks === 'refuse' && (await isLink(dirname(dir))))
        throw new Error(`${dirname(dir)} is a symbolic link; a project keeps its own .spine`);
      layers.push(
        await subagents.loadProfileDir(dir, {
          symlinks,
          onInvalid: (error) => onWarning(`agent profile skipped: ${error.message}`),
        }),
      );
    } catch (error) {
      onWarning(
        `agent profiles in ${dir} not loaded: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return subagents.mergeProfiles(subagents.BUILTIN_PROFILES, ...layers);
}

/** True when `path` is a symbolic link (false when it is missing). */
async function isLink(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The parts of wire.ts a child's runtime and prompt are built from. */
export interface SubagentWiring {
  config: SpineConfig;
  cwd: string;
  session: SessionLog & { store: import('@spine/protocol').SessionStore };
  /** The parent's runtime (lazy: the task tool is registered when it is built). */
  runtime: ToolRuntime;
  model: ResolvedModel;
  warn: (message: string) => void;
  shellEnv: NodeJS.ProcessEnv;
  network: SpineConfig['shell']['network'];
  backend: SandboxBackend | undefined;
  hooks: ShellHooks;
  /** Keeps a hook run fired in the background until the session closes. */
  background?: (run: Promise<unknown>) => void;
  toolRuntime: typeof import('@spine/tool-runtime');
  compactionPkg: typeof import('@spine/compaction');
  agentLoop: typeof import('@spine/agent-loop');
  instructions: import('@spine/agent-loop').PromptContribution | undefined;
  meter: import('@spine/protocol').TokenMeter;
  summarizer?: Summarizer;
  approve: ToolRunOptions['approve'] | undefined;
  /** Further tools children may get (web, language servers), built per child. */
  extraTools?: () => AnyToolDefinition[];
  /** A rerun: children answer from their recorded outputs and approvals. */
  recorded?: import('@spine/subagents').RecordedChildren;
}

/**
 * Builds the `task` tool for the parent's runtime. Children use the parent's approval policy in
 * force (a `/approval` change reaches running children too), the parent's sandbox or narrower, and the parent's approval callback, which shows
 * each question labelled with the child. Progress goes to the session's {@link childMonitorFor}.
 */
export async function wireSubagents(wiring: SubagentWiring): Promise<AnyToolDefinition> {
  const subagents = await import('@spine/subagents');
  const { config, cwd, runtime, toolRuntime, compactionPkg, agentLoop, model } = wiring;
  const profiles = await loadCliProfiles(cwd, wiring.warn);
  let approval: ApprovalPolicyName | ApprovalPolicy = config.approval;
  // Running children's runtimes, by child session id.
  const live = new Map<string, ToolRuntime>();
  // `/approval` reaches running children: the runtime is the CLI's own object, so its setter is
  // wrapped here. A child follows the parent's policy now, never a broader one.
  const setApproval = runtime.setApproval.bind(runtime);
  runtime.setApproval = (policy) => {
    approval = policy;
    setApproval(policy);
    for (const tools of live.values()) tools.setApproval(policy);
  };
  // The REPL's live view of children (agents/monitor.ts); also ends a child's approval tracking.
  const monitor = childMonitorFor(wiring.session);
  const models = wiring.recorded
    ? new Map()
    : await profileModels(profiles, config, (message) => wiring.warn(visibleText(message)));
  let hookQueue: Promise<unknown> = Promise.resolve();
  const tool = subagents.createTaskTool({
    session: wiring.session,
    store: wiring.session.store,
    tools: runtime,
    sandbox: () => runtime.sandbox,
    model: { model: model.client, modelId: model.modelId, contextWindow: model.contextWindow },
    profiles,
    resolveModel: (name) => models.get(name),
    limits: { maxSteps: config.maxSteps, ...(config.loops.enabled ? { loops: config.loops } : {}) },
    onProgress: (event) => {
      // `subagent-start` / `subagent-stop` hooks (fired in the background: a child never waits).
      if (event.type === 'start' || event.type === 'end') {
        const { child } = event;
        const common = { childSessionId: child.sessionId, profile: child.profile.name };
        // One after another, in the order of the events (a quick child's stop never overtakes
        // its start).
        hookQueue = hookQueue
          .then(() =>
            event.type === 'start'
              ? wiring.hooks.fire('subagent-start', { ...common, description: child.description })
              : wiring.hooks.fire('subagent-stop', { ...common, reason: event.reason }),
          )
          .catch(() => undefined);
        wiring.background?.(hookQueue);
      }
      if (event.type === 'end') {
        live.delete(event.child.sessionId);
        // `spine sessions` shows a child's cost and model from the index, like any session's.
        const named = event.child.profile.model;
        indexChild(wiring, event.child.sessionId, event.usage, {
          model: named && models.has(named) ? named : `${model.provider}/${model.modelId}`,
        });
      }
      monitor.onProgress(event);
    },
    onChildAgent: monitor.onChildAgent,
    createTools: (child) => {
      const tools = toolRuntime.createToolRuntime({
        cwd,
        tools: [
          ...(toolRuntime.createWorkspaceTools({
            cwd,
            env: wiring.shellEnv,
            network: wiring.network,
            exclude: config.tools.exclude,
            sessionId: () => child.session.id,
          }) as AnyToolDefinition[]),
          compactionPkg.createRecallHistoryTool({
            session: child.session,
          }) as unknown as AnyToolDefinition,
          ...extraToolsFor(wiring),
        ].filter((definition) => child.tools.includes(definition.spec.name)),
        sandbox: child.sandbox,
        approval,
        hooks: wiring.hooks.toolHooks,
        ...(wiring.backend ? { sandboxBackend: wiring.backend } : {}),
        protectedPaths:
          config.protectedPaths === false
            ? []
            : (config.protectedPaths ?? toolRuntime.DEFAULT_PROTECTED_PATHS),
      });
      live.set(child.sessionId, tools);
      return tools;
    },
    preparePrompt: (prompt, child) => {
      prompt.register(agentLoop.createEnvironmentContribution({ cwd, sandbox: child.sandbox }));
      if (wiring.instructions) prompt.register(wiring.instructions);
    },
    // Each child compacts its own context, with the parent's settings.
    compaction: () =>
      compactionPkg.createCompactionEngine({
        meter: wiring.meter,
        summarizer:
          wiring.summarizer ??
          compactionPkg.createModelSummarizer({ model: model.client, modelId: model.modelId }),
        auto: config.compaction.auto,
      }),
    ...(wiring.recorded
      ? { childModel: wiring.recorded.childModel, approve: wiring.recorded.approve }
      : wiring.approve
        ? { approve: wiring.approve }
        : {}),
  });
  return tool as unknown as AnyToolDefinition;
}

/**
 * The models profiles name (`model: deepseek/deepseek-v4-pro`), resolved once at start like the
 * session's own; a name that cannot be used (unknown, no key) is reported, and its profiles run on
 * the session's model.
 */
async function profileModels(
  profiles: readonly AgentProfile[],
  config: SpineConfig,
  warn: (message: string) => void,
): Promise<Map<string, import('@spine/subagents').ChildModel>> {
  const models = new Map<string, import('@spine/subagents').ChildModel>();
  const names = new Set(profiles.flatMap((profile) => (profile.model ? [profile.model] : [])));
  if (names.size === 0) return models;
  const { resolveModel } = await import('../model-config.js');
  const { profileModelPlan } = await import('./profile-models.js');
  for (const name of names) {
    const plan = profileModelPlan(config, name);
    if (plan.use === 'session') {
      warn(
        `subagent model ${JSON.stringify(name)} is not used (${plan.reason}); profiles naming it run on the session's model`,
      );
      continue;
    }
    try {
      const { baseUrl: _baseUrl, apiKeyEnv: _apiKeyEnv, ...rest } = config;
      const resolved = await resolveModel({ ...rest, ...plan.settings }, { requireKey: true });
      models.set(name, {
        model: resolved.client,
        modelId: resolved.modelId,
        contextWindow: resolved.contextWindow,
      });
    } catch (error) {
      warn(
        `subagent model ${JSON.stringify(name)} cannot be used (${error instanceof Error ? error.message : String(error)}); profiles naming it run on the session's model`,
      );
    }
  }
  return models;
}

/** Writes a finished child's index entry (cost, tokens, model); a failure is only reported. */
function indexChild(
  wiring: SubagentWiring,
  sessionId: string,
  usage: import('@spine/protocol').Usage,
  options: { model: string },
): void {
  try {
    writeSessionIndex(wiring.config.sessionDir, sessionId, {
      ...(usage.costUsd === undefined ? {} : { costUsd: usage.costUsd }),
      model: options.model,
      tokens:
        usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens,
      turns: 1,
      updatedAt: new Date().toISOString(),
    });
  } catch (error) {
    wiring.warn(
      `subagent ${sessionId}: index entry not written (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

/** The extra tools for one child; a family that fails to build is reported and left out. */
function extraToolsFor(wiring: SubagentWiring): AnyToolDefinition[] {
  try {
    return wiring.extraTools?.() ?? [];
  } catch (error) {
    wiring.warn(
      `web or language-server tools not given to the subagent: ${error instanceof Error ? error.message : String(error)}`,
    );
    return [];
  }
}
