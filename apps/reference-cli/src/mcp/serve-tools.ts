// Which of Spine's tools `spine mcp serve` offers, and the definitions their hints come from.
import type { SpineConfig } from '@spine/harness';
import { UsageError } from '@spine/harness';
import type { AnyToolDefinition, ToolSpec } from '@spine/protocol';

/** Tools that only make sense inside a Spine agent (they need its model or its history). */
const AGENT_ONLY = new Set(['task', 'recall_history', 'remember']);

/**
 * Hints for tools the harness adds to the runtime (their definitions are not built here, and an
 * unknown definition gets the most cautious hints): none reaches the network; `job_output` only
 * reads; `job_kill` ends a process (again: no further effect); `update_plan` replaces the plan.
 */
export const HARNESS_TOOL_HINTS = {
  job_output: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  job_kill: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  update_plan: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
} as const;

/** The definitions of the tools a served runtime holds, built only to read their permissions. */
export async function toolDefinitions(
  config: SpineConfig,
  cwd: string,
): Promise<AnyToolDefinition[]> {
  const toolRuntime = await import('@spine/tool-runtime');
  const tools = toolRuntime.createWorkspaceTools({
    cwd,
    env: {},
    network: config.shell.network,
  }) as AnyToolDefinition[];
  if (config.web.enabled) {
    const web = await import('@spine/web-tools').catch(() => undefined);
    if (web)
      tools.push(
        ...(web.createWebTools(web.createWebRuntime({ providers: [] })) as AnyToolDefinition[]),
      );
  }
  if (config.lsp.enabled) {
    // A manager that is never used starts no language server: the tools are read for their hints.
    const lsp = await import('@spine/lsp-tools').catch(() => undefined);
    if (lsp)
      tools.push(...(lsp.createLspTools(lsp.createLspManager({ cwd })) as AnyToolDefinition[]));
  }
  return tools;
}

/** Whether a search provider is configured (web_search is offered by default only then). */
async function searchConfigured(): Promise<boolean> {
  const web = await import('@spine/web-tools').catch(() => undefined);
  if (!web) return false;
  const runtime = web.createWebRuntime({ providers: web.webProvidersFromEnv(process.env) });
  return runtime.describe().search.status === 'selected';
}

/**
 * The names to serve: those of `--tools` (comma-separated), each one the runtime has, or by
 * default every tool but the agent-only ones (and `web_search` without a search provider).
 *
 * @throws a {@link UsageError} when `--tools` names a tool the runtime does not have.
 */
export async function chooseTools(
  specs: readonly ToolSpec[],
  requested?: string,
): Promise<string[]> {
  const available = specs.map((spec) => spec.name).filter((name) => !AGENT_ONLY.has(name));
  if (requested === undefined) {
    const search = await searchConfigured();
    return available.filter((name) => name !== 'web_search' || search);
  }
  const names = [
    ...new Set(
      requested
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    ),
  ];
  if (names.length === 0) throw new UsageError({ message: '--tools needs at least one tool name' });
  for (const name of names)
    if (!available.includes(name))
      throw new UsageError({
        message: `--tools: no tool named ${JSON.stringify(name)} can be served; choose from ${available.join(', ')}`,
      });
  return names;
}
