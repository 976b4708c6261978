// Shared fixtures for the approval and hook-chain tests: three tools that record what ran.
import type { ApprovalRequest, ToolCallPart } from '@spine/protocol';
import { z } from 'zod';
import { defineTool } from '../src/define-tool.js';

export const cwd = process.cwd();
/** Tool calls get ids a1, a2, … in the order they are built. */
let ids = 0;
export const call = (name: string, args: unknown = {}): ToolCallPart => ({
  type: 'tool-call',
  id: `a${++ids}`,
  name,
  arguments: JSON.stringify(args),
});
/** What the fixture tools ran, in order; tests clear it with `ran.length = 0`. */
export const ran: string[] = [];
export const look = defineTool({
  name: 'look',
  description: 'reads',
  parameters: { type: 'object' },
  isConcurrencySafe: true,
  execute: async () => {
    ran.push('look');
    return { content: 'seen' };
  },
});
export const change = defineTool({
  name: 'change',
  description: 'writes',
  parameters: { type: 'object' },
  permissions: { writesFiles: true },
  execute: async () => {
    ran.push('change');
    return { content: 'changed' };
  },
});
export const shell = defineTool({
  name: 'shell',
  description: 'runs',
  parameters: z.object({
    command: z.string(),
    escalation: z
      .object({ justification: z.string(), permissions: z.object({ network: z.boolean() }) })
      .optional(),
  }),
  permissions: { executes: true },
  execute: async ({ command }, context) => {
    ran.push(`shell:${command}:${JSON.stringify(context.grantedPermissions ?? null)}`);
    return { content: 'ran' };
  },
});
/** The read, write and command tools together. */
export const tools = [look, change, shell];

/** An approver that gives one fixed answer and keeps every request it was asked. */
export function recorder(answer: 'once' | 'always' | 'deny') {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    approve: async (request: ApprovalRequest) => {
      asked.push(request);
      return answer;
    },
  };
}
