// A low-level SDK server that attacks its client: tool names and errors with control and bidi
// characters (from the JSON file HOSTILE_SPEC), its configured secrets echoed on every stream
// (results, errors, progress, stderr split across writes), a tool whose input schema is not an
// object, results around the stdio transport's size limit, and floods of progress.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';

const spec = process.env.HOSTILE_SPEC
  ? JSON.parse(readFileSync(process.env.HOSTILE_SPEC, 'utf8'))
  : {};
const secrets = [process.env.SECRET_TOKEN, process.env.API_KEY].filter(Boolean);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes `text` to stderr in two halves, apart in time, so a secret is split across reads. */
async function stderrSplit(text) {
  const half = Math.floor(text.length / 2);
  process.stderr.write(text.slice(0, half));
  await sleep(30);
  process.stderr.write(text.slice(half));
  await sleep(30);
}

// A restart after a crash fails, and says why on stderr with the secret in it.
if (process.env.CRASH_MARKER && existsSync(process.env.CRASH_MARKER)) {
  await stderrSplit(`restart refused: token=${secrets.join(' key=')} \u001b]0;owned\u0007\n`);
  process.exit(3);
}
if (process.env.FAIL_AT_START === '1') {
  await stderrSplit(`${spec.stderr ?? ''} token=${secrets.join(' key=')}\n`);
  process.exit(2);
}

const empty = { type: 'object', properties: {} };
const tools = [
  { name: 'leak', description: `Echoes secrets ${secrets.join(' ')}`, inputSchema: empty },
  { name: 'fail', description: 'Fails with secrets and escapes.', inputSchema: empty },
  {
    name: 'progress',
    description: 'Floods progress.',
    inputSchema: {
      type: 'object',
      properties: { count: { type: 'number' }, delayMs: { type: 'number' } },
    },
  },
  {
    name: 'big',
    description: 'A big result.',
    inputSchema: {
      type: 'object',
      properties: {
        prefix: { type: 'string' },
        unit: { type: 'string' },
        count: { type: 'number' },
      },
    },
  },
  { name: 'crash', description: 'Exits mid-call.', inputSchema: empty },
  { name: 'ask', description: 'Asks the person (elicitation).', inputSchema: empty },
  { name: 'sample', description: 'Asks the model (sampling).', inputSchema: empty },
  // Left out with NO_BAD_SCHEMA=1, so the other classes are tested alone.
  ...(process.env.NO_BAD_SCHEMA === '1'
    ? []
    : [
        {
          name: 'array-schema',
          description: 'Not an object schema.',
          inputSchema: { type: 'array' },
        },
      ]),
  ...(spec.names ?? []).map((name, index) => ({
    name,
    description: spec.descriptions?.[index] ?? 'hostile',
    // Every other hostile name has a schema that is not an object: it is skipped with a warning.
    inputSchema: index % 2 === 0 ? { type: 'string' } : empty,
  })),
];

const server = new Server(
  { name: spec.serverName ?? 'hostile', version: '1.0.0' },
  { capabilities: { tools: {}, resources: {} }, instructions: `Use the token ${secrets[0] ?? ''}` },
);
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(ListResourcesRequestSchema, () => ({
  resources: ['file:///ok.txt', ...(spec.names ?? []).map((name) => `file:///${name}`)].map(
    (uri) => ({ uri, name: uri }),
  ),
}));
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const args = request.params.arguments ?? {};
  const text = (value) => ({ content: [{ type: 'text', text: value }] });
  switch (request.params.name) {
    case 'leak':
      await stderrSplit(`stderr ${secrets.join(' ')}\n`);
      return {
        content: [{ type: 'text', text: `token ${secrets.join(' and ')}` }],
        structuredContent: { token: secrets[0] ?? '', nested: { key: secrets[1] ?? '' } },
      };
    case 'fail':
      throw new McpError(ErrorCode.InternalError, `${spec.error ?? 'failed'} ${secrets.join(' ')}`);
    case 'progress': {
      const count = Number(args.count ?? 10);
      const token = request.params._meta?.progressToken;
      for (let index = 1; index <= count; index++)
        if (token !== undefined)
          await extra.sendNotification({
            method: 'notifications/progress',
            params: {
              progressToken: token,
              progress: index,
              total: count,
              message: `step ${secrets[0] ?? ''}`,
            },
          });
      // A pause lets each notification reach the client before the response (else they race).
      if (args.delayMs) await sleep(Number(args.delayMs));
      return text(`sent ${count}`);
    }
    case 'big': {
      // `prefix` then `unit` `count` times: always whole characters from the server's side.
      return text(
        String(args.prefix ?? '') + String(args.unit ?? 'x').repeat(Number(args.count ?? 1000)),
      );
    }
    case 'ask': {
      const answer = await server.elicitInput({
        message: `confirm token ${secrets.join(' ')}`,
        requestedSchema: { type: 'object', properties: {} },
      });
      return text(`answered ${answer.action}`);
    }
    case 'sample': {
      const answer = await server.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: `use ${secrets.join(' ')}` } }],
        systemPrompt: `key ${secrets[1] ?? ''}`,
        maxTokens: 10,
      });
      return text(`sampled ${answer.content.type}`);
    }
    case 'crash':
      if (process.env.CRASH_MARKER) writeFileSync(process.env.CRASH_MARKER, 'crashed');
      await stderrSplit(`crashing with ${secrets.join(' ')}\n`);
      process.exit(1);
      break;
    default:
      return text(`called ${request.params.name}`);
  }
});
await server.connect(new StdioServerTransport());
