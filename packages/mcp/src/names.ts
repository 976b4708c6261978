import { createHash } from 'node:crypto';

/** The longest tool name every provider accepts. */
export const MAX_TOOL_NAME_LENGTH = 64;

const UNSAFE = /[^A-Za-z0-9_-]/g;

function sanitise(text: string): string {
  const out = text.replace(UNSAFE, '_');
  return out === '' ? '_' : out;
}

function shortHash(server: string, tool: string, attempt: number): string {
  return createHash('sha256')
    .update(`${server}\u0000${tool}\u0000${attempt}`)
    .digest('hex')
    .slice(0, 8);
}

/**
 * The plain model-facing name of an MCP tool: `mcp__<server>__<tool>`, every character outside
 * `[A-Za-z0-9_-]` replaced by `_`. It may exceed {@link MAX_TOOL_NAME_LENGTH}; use
 * {@link assignToolNames} for the final, unique, capped names.
 */
export function plainToolName(server: string, tool: string): string {
  return `mcp__${sanitise(server)}__${sanitise(tool)}`;
}

function hashedName(server: string, tool: string, attempt: number): string {
  const suffix = `_${shortHash(server, tool, attempt)}`;
  return `${plainToolName(server, tool).slice(0, MAX_TOOL_NAME_LENGTH - suffix.length)}${suffix}`;
}

/**
 * Assigns each `(server, tool)` pair its model-facing name: the plain name when it is at most 64
 * characters and not taken, otherwise the plain name cut short with `_` and 8 hex digits of a hash
 * of the original pair. Names are unique across `pairs` and `reserved` (for example the built-in
 * tools), match `[A-Za-z0-9_-]{1,64}`, and depend only on the input, in order.
 *
 * @example
 * ```ts
 * assignToolNames([{ server: 'fs', tool: 'read file' }]).get('fs\u0000read file'); // 'mcp__fs__read_file'
 * ```
 */
export function assignToolNames(
  pairs: readonly { server: string; tool: string }[],
  reserved: Iterable<string> = [],
): Map<string, string> {
  const taken = new Set(reserved);
  const out = new Map<string, string>();
  for (const { server, tool } of pairs) {
    const key = toolKey(server, tool);
    if (out.has(key)) continue;
    let name = plainToolName(server, tool);
    let attempt = 0;
    while (name.length > MAX_TOOL_NAME_LENGTH || taken.has(name)) {
      name = hashedName(server, tool, attempt);
      attempt += 1;
    }
    taken.add(name);
    out.set(key, name);
  }
  return out;
}

/** The key of a `(server, tool)` pair in the map {@link assignToolNames} returns. */
export function toolKey(server: string, tool: string): string {
  return `${server}\u0000${tool}`;
}
