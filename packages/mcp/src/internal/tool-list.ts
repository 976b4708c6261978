// tools/list without the SDK's all-or-nothing check: the SDK's `listTools` rejects the whole list
// when one tool's input schema is not an object, which made the server unavailable. Here each
// tool is checked alone; a malformed one is skipped with a reason, the others stay.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Tool, ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { allPages } from './connection-helpers.js';

const LenientListSchema = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().optional(),
});

/** A tool left out of the list, with why. */
export interface SkippedTool {
  tool: string;
  message: string;
}

/** The tools of one list, and the ones skipped because their entry is malformed. */
export interface ToolList {
  tools: Tool[];
  skipped: SkippedTool[];
}

/** Sorts one listed entry: a tool (its input schema is checked later, by the schema compiler) or a skip. */
export function checkListedTool(
  entry: unknown,
  index: number,
): { tool: Tool } | { skipped: SkippedTool } {
  const parsed = ToolSchema.safeParse(entry);
  if (parsed.success) return { tool: parsed.data };
  const record = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<
    string,
    unknown
  >;
  const name = typeof record.name === 'string' ? record.name : `#${index + 1}`;
  // Only the input schema is wrong: keep the tool, the schema check skips it with its own reason.
  const onlySchema = parsed.error.issues.every((issue) => issue.path[0] === 'inputSchema');
  if (onlySchema && typeof record.name === 'string')
    return { tool: { ...(record as unknown as Tool), name: record.name } };
  const reason = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(entry)'}: ${issue.message}`)
    .join('; ');
  return {
    skipped: {
      tool: name,
      message: `tool ${name} skipped: its entry in tools/list is malformed (${reason})`,
    },
  };
}

/** Every page of `tools/list`, each tool checked alone. */
export async function listTools(client: Client): Promise<ToolList> {
  const entries = await allPages(async (cursor) => {
    const result = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      LenientListSchema,
    );
    return { items: result.tools, nextCursor: result.nextCursor };
  });
  const tools: Tool[] = [];
  const skipped: SkippedTool[] = [];
  entries.forEach((entry, index) => {
    const checked = checkListedTool(entry, index);
    if ('tool' in checked) tools.push(checked.tool);
    else skipped.push(checked.skipped);
  });
  // What the SDK's listTools would cache (output schema validators, task support), if it can.
  (client as unknown as { cacheToolMetadata?: (tools: Tool[]) => void }).cacheToolMetadata?.(
    tools.filter((tool) => tool.inputSchema?.type === 'object'),
  );
  return { tools, skipped };
}
