import type { AgentSession } from '@spine/harness';
import type { Style } from '@spine/tui';

/** What an MCP slash command asks the REPL to do: nothing more, or send a prompt's text as a turn. */
export type McpSlashOutcome = { kind: 'done' } | { kind: 'send'; text: string };

/** `key=value` words → prompt arguments; other words join under `input` when the prompt has one. */
function promptArguments(argument: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const word of argument.split(/\s+/).filter(Boolean)) {
    const at = word.indexOf('=');
    if (at > 0) out[word.slice(0, at)] = word.slice(at + 1);
  }
  return out;
}

/**
 * `/mcp` (each server's state, transport, tools and problems) and `/mcp__<server>__<prompt>
 * [name=value …]`: gets the server's prompt and sends its text as the next turn's input, so it is
 * recorded like anything the person types.
 */
export async function runMcpSlash(
  name: string,
  argument: string,
  active: AgentSession,
  context: { print: (text: string) => void; style: Style },
): Promise<McpSlashOutcome> {
  const { print, style } = context;
  const manager = active.mcp?.manager;
  if (!manager) {
    print('no MCP servers configured (see `spine mcp add`)');
    return { kind: 'done' };
  }
  if (name === '/mcp') {
    for (const status of manager.status()) {
      const how = [status.transport, status.sandboxed ? 'sandboxed' : undefined]
        .filter(Boolean)
        .join(', ');
      const state =
        status.state === 'ready'
          ? style.green(status.state)
          : status.state === 'failed'
            ? style.red(status.state)
            : status.state;
      print(
        `  ${status.name.padEnd(16)} ${state}${how ? ` (${how})` : ''} · ${status.tools.length} tools · ${status.description}`,
      );
      if (status.error) print(style.red(`    ${status.error}`));
    }
    for (const diagnostic of manager.diagnostics())
      if (diagnostic.tool !== undefined)
        print(style.yellow(`  ${diagnostic.server}: ${diagnostic.message}`));
    print(
      style.dim(
        '  prompts run as /mcp__<server>__<prompt> [name=value …]; resources as @<server>:<uri>',
      ),
    );
    return { kind: 'done' };
  }
  const { plainToolName } = await import('@spine/mcp');
  for (const status of manager.status()) {
    // `/mcp__<server>__`: the prefix of this server's prompt commands.
    if (!name.startsWith(`/${plainToolName(status.name, 'x').slice(0, -1)}`)) continue;
    const handle = await manager.server(status.name);
    const prompts = await handle.listPrompts();
    const prompt = prompts.find(
      (candidate) => `/${plainToolName(status.name, candidate.name)}` === name,
    );
    if (!prompt) continue;
    const args = promptArguments(argument);
    const missing = (prompt.arguments ?? []).filter(
      (entry) => entry.required && args[entry.name] === undefined,
    );
    if (missing.length > 0) {
      print(style.red(`${name} needs ${missing.map((entry) => `${entry.name}=…`).join(' ')}`));
      return { kind: 'done' };
    }
    const text = await handle.getPrompt(prompt.name, args);
    if (!text.trim()) {
      print(style.yellow(`${name}: the server's prompt has no text content`));
      return { kind: 'done' };
    }
    return { kind: 'send', text };
  }
  print(style.red(`no MCP prompt ${name}; /mcp lists the servers`));
  return { kind: 'done' };
}
