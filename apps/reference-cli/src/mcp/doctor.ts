import { createConfiguredManager, type SpineConfig } from '@spine/harness';
import type { SandboxBackend } from '@spine/tool-runtime';
import type { DoctorCheck } from '../commands/doctor.js';

/**
 * The doctor's MCP checks: every enabled server is started (under the sandbox, as a session would)
 * and its tools listed; a server that fails is a failed check, a skipped tool a warning.
 */
export async function mcpDoctorChecks(options: {
  config: SpineConfig;
  cwd: string;
  backend: SandboxBackend | undefined;
}): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  let manager: Awaited<ReturnType<typeof createConfiguredManager>>;
  try {
    manager = await createConfiguredManager({
      ...options,
      warn: (message) =>
        checks.push({ area: 'mcp', name: 'sandbox', status: 'warn', detail: message }),
    });
  } catch (error) {
    return [
      { area: 'mcp', name: 'configuration', status: 'fail', detail: (error as Error).message },
    ];
  }
  try {
    for (const status of await manager.start({ all: true })) {
      if (status.state === 'disabled') {
        checks.push({
          area: 'mcp',
          name: status.name,
          status: 'warn',
          detail: 'disabled in the configuration',
        });
        continue;
      }
      if (status.state !== 'ready') {
        checks.push({
          area: 'mcp',
          name: status.name,
          status: 'fail',
          detail: status.error ?? status.state,
        });
        continue;
      }
      const how = `${status.transport}${status.sandboxed ? ', sandboxed' : ''}`;
      const tools = status.tools.length > 0 ? `: ${status.tools.join(', ')}` : '';
      checks.push({
        area: 'mcp',
        name: status.name,
        status: 'ok',
        detail: `${status.tools.length} tools (${how})${tools}`,
      });
    }
    for (const diagnostic of manager.diagnostics())
      if (diagnostic.tool !== undefined)
        checks.push({
          area: 'mcp',
          name: diagnostic.server,
          status: 'warn',
          detail: diagnostic.message,
        });
  } finally {
    await manager.close();
  }
  return checks;
}
