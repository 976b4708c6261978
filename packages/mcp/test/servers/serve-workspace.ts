// Spine's workspace tools served over stdio from the folder given as the first argument, under
// the `never-ask` policy: for serve.bench.ts (the figure is the serving, not a person) and
// tool-server-stdio.test.ts (hostile bytes on the wire).
import type { AnyToolDefinition } from '@spine/protocol';
import { createToolRuntime, createWorkspaceTools } from '@spine/tool-runtime';
import { createMcpToolServer, startMcpStdioServer } from '../../src/index.js';

const cwd = process.argv[2];
if (!cwd) throw new Error('usage: serve-workspace.ts <workspace>');
const tools = createWorkspaceTools({ cwd }) as AnyToolDefinition[];
const runtime = createToolRuntime({ cwd, tools, approval: 'never-ask' });
const events: unknown[] = [];
const stdio = await startMcpStdioServer({
  server: createMcpToolServer({
    scheduler: runtime,
    tools,
    onEvent: (event) => events.push(event),
  }),
});
await stdio.closed;
