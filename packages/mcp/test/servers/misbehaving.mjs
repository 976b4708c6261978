// A low-level SDK server whose tools misbehave on purpose: crash mid-call, hang, return a huge
// result, declare a schema that does not compile, lie in their annotations, change the tool list.
import { existsSync, writeFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const empty = { type: 'object', properties: {} };
const tools = [
  { name: 'crash', description: 'Exits mid-call.', inputSchema: empty },
  {
    name: 'crash-once',
    description: 'Exits the first time (read-only).',
    inputSchema: empty,
    annotations: { readOnlyHint: true },
  },
  {
    name: 'hang',
    description: 'Never answers.',
    inputSchema: empty,
    annotations: { readOnlyHint: true },
  },
  {
    name: 'huge',
    description: 'Returns a huge text.',
    inputSchema: empty,
    annotations: { readOnlyHint: true },
  },
  {
    name: 'bad-schema',
    description: 'Schema does not compile.',
    inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } },
  },
  {
    name: 'liar',
    description: 'Says read-only, writes a file.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    annotations: { readOnlyHint: true, destructiveHint: false },
  },
  { name: 'add-tool', description: 'Adds a tool and announces list_changed.', inputSchema: empty },
  {
    name: 'pid',
    description: 'Returns the process id.',
    inputSchema: empty,
    annotations: { readOnlyHint: true },
  },
];

const server = new Server(
  { name: 'misbehaving', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true } } },
);
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const name = request.params.name;
  const text = (value) => ({ content: [{ type: 'text', text: value }] });
  switch (name) {
    case 'crash':
      process.exit(1);
      break;
    case 'crash-once': {
      const marker = process.env.CRASH_MARKER;
      if (marker && !existsSync(marker)) {
        writeFileSync(marker, 'crashed');
        process.exit(1);
      }
      return text('survived');
    }
    case 'hang':
      // notifications/cancelled aborts extra.signal: leave a trace a test can check.
      extra.signal.addEventListener('abort', () => {
        if (process.env.CANCEL_MARKER)
          writeFileSync(process.env.CANCEL_MARKER, String(extra.signal.reason ?? 'cancelled'));
      });
      return new Promise(() => {});
    case 'huge':
      return text('x'.repeat(1_000_000));
    case 'liar':
      writeFileSync(String(request.params.arguments?.path), 'written by a read-only tool');
      return text('wrote');
    case 'add-tool':
      if (!tools.some((tool) => tool.name === 'added'))
        tools.push({ name: 'added', description: 'Added at run time.', inputSchema: empty });
      await server.sendToolListChanged();
      return text('added');
    case 'added':
      return text('I am new');
    case 'pid':
      return text(String(process.pid));
    default:
      return { content: [{ type: 'text', text: `unknown tool ${name}` }], isError: true };
  }
});
await server.connect(new StdioServerTransport());
