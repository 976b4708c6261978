// What each source contributed to a request, marked so a reader sees where it came from: the
// memory files in the system prompt (each under its path and scope), the tools each MCP server
// added, and the messages by their recorded source. Every name is hostile: escaped.
import { MEMORY_SECTION_TITLE } from '@spine/memory';
import type { ModelRequest } from '@spine/protocol';
import { escapeHtml, formatInteger, inertLine } from './escape.js';

/** `MCP server <name>` for a tool an MCP server added (`mcp__<server>__<tool>`), else undefined. */
export function mcpServerOf(toolName: string): string | undefined {
  return MCP_TOOL.exec(toolName)?.[1];
}

// Hoisted: a literal in the function is a new RegExp per call, and the request view calls this
// once per message of every request (allocation that grows with the session's surface).
const MCP_TOOL = /^mcp__(.+?)__./;

/** A source mark: `kind` (`memory`, `mcp`, …) as a data attribute, `label` as its text. */
export function sourceMark(kind: string, label: string): string {
  return `<span class="src" data-source="${escapeHtml(kind)}">${inertLine(label)}</span>`;
}

/** The mark of a tool call or result by its tool name: an MCP server's, or nothing. */
export function toolSourceMark(toolName: string): string {
  const server = mcpServerOf(toolName);
  return server === undefined ? '' : ` ${sourceMark('mcp', `MCP server ${server}`)}`;
}

/** The memory files in a system prompt's memory section, with the characters each brought. */
export function memoryFiles(system: string): Array<{ path: string; scope: string; chars: number }> {
  const start = system.indexOf(`# ${MEMORY_SECTION_TITLE}\n`);
  if (start < 0) return [];
  // The section runs to the next top-level heading (the next section of the prompt).
  const rest = system.slice(start + MEMORY_SECTION_TITLE.length + 3);
  const end = rest.search(/^# /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  const files: Array<{ path: string; scope: string; chars: number }> = [];
  const heading = /^## (.+) \((\w+) memory\)$/gm;
  const found = [...section.matchAll(heading)];
  found.forEach((match, index) => {
    const next = found[index + 1]?.index ?? section.length;
    files.push({
      path: match[1] as string,
      scope: match[2] as string,
      chars: next - (match.index ?? 0),
    });
  });
  return files;
}

/** The contributions of memory, MCP servers and message sources to `request`. */
export function contributionsHtml(request: ModelRequest): string {
  const rows: string[] = [];
  for (const file of memoryFiles(request.system ?? ''))
    rows.push(
      `<tr><td>${sourceMark('memory', `${file.scope} memory`)}</td><td>system prompt: <code>${inertLine(file.path)}</code></td><td>${formatInteger(file.chars)} chars</td></tr>`,
    );
  const byServer = new Map<string, string[]>();
  for (const tool of request.tools ?? []) {
    const server = mcpServerOf(tool.name);
    if (server !== undefined) byServer.set(server, [...(byServer.get(server) ?? []), tool.name]);
  }
  for (const [server, tools] of byServer)
    rows.push(
      `<tr><td>${sourceMark('mcp', `MCP server ${server}`)}</td><td>tools: ${tools.map(inertLine).join(', ')}</td><td>${tools.length} tools</td></tr>`,
    );
  const bySource = new Map<string, number>();
  for (const message of request.messages) {
    const source =
      message.role === 'user'
        ? (message.source ?? 'user')
        : message.role === 'tool' && mcpServerOf(message.toolName) !== undefined
          ? `MCP server ${mcpServerOf(message.toolName)} (results)`
          : undefined;
    if (source !== undefined) bySource.set(source, (bySource.get(source) ?? 0) + 1);
  }
  for (const [source, count] of bySource)
    rows.push(
      `<tr><td>${sourceMark(source.startsWith('MCP server') ? 'mcp' : source, source)}</td><td>messages</td><td>${formatInteger(count)}</td></tr>`,
    );
  if (rows.length === 0) return '';
  return `<table class="sources"><caption>what each source contributed to this request</caption><tr><th>source</th><th>contributed</th><th>size</th></tr>${rows.join('')}</table>`;
}
