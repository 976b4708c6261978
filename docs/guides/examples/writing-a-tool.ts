// Runnable companion of docs/guides/writing-a-tool.md. Offline; run with
//   npx tsx docs/guides/examples/writing-a-tool.ts
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolCallPart, ToolDefinition, ToolOutput } from '@spine/protocol';
import { createMemoryStore, Session } from '@spine/session-log';
import {
  type ApprovalPolicy,
  createToolRuntime,
  defineTool,
  resolveWorkspacePath,
} from '@spine/tool-runtime';
import { z } from 'zod';

const cwd = await mkdtemp(join(tmpdir(), 'spine-tool-'));
await writeFile(join(cwd, 'notes.md'), 'one two three\n');

// 1. defineTool with a zod schema: read-only, so safe to run in parallel with other safe calls.
const wordCount = defineTool({
  name: 'word_count',
  description: 'Counts the words of a workspace file.',
  parameters: z.object({ path: z.string().describe('File path relative to the workspace') }),
  isConcurrencySafe: true,
  async execute({ path }, context): Promise<ToolOutput> {
    const { absolute } = await resolveWorkspacePath(context.cwd, path); // refuses `..`, escaping symlinks
    const text = await readFile(absolute, 'utf8');
    return {
      content: `${text.split(/\s+/).filter(Boolean).length} words`,
      meta: { sourcePath: path },
    };
  },
});

// 2. defineTool with a raw JSON Schema: it writes files, so it declares it, names the paths it
// mutates (calls on the same path are serialised) and has a time limit.
interface AppendArgs {
  path: string;
  line: string;
}
const appendLine = defineTool<AppendArgs>({
  name: 'append_line',
  description: 'Appends one line to a workspace file.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string' }, line: { type: 'string' } },
    required: ['path', 'line'],
    additionalProperties: false,
  },
  permissions: { writesFiles: true },
  mutatedPaths: (args) => [args.path],
  timeoutMs: 5_000,
  async execute({ path, line }, context) {
    if (context.sandbox === 'read-only')
      return { content: 'The sandbox is read-only.', isError: true };
    const { absolute } = await resolveWorkspacePath(context.cwd, path);
    await appendFile(absolute, `${line}\n`);
    return { content: `Appended to ${path}.`, meta: { sourcePath: path } };
  },
});

// 3. A plain protocol ToolDefinition, as a tool package would ship it without depending on
// @spine/tool-runtime. It honours its abort signal, so the runtime's timeout can stop it.
const slowEcho: ToolDefinition<{ text: string }> = {
  spec: {
    name: 'slow_echo',
    description: 'Echoes its text after a while.',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  timeoutMs: 100,
  isConcurrencySafe: true,
  execute: ({ text }, { signal }) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve({ content: text }), 1_000);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    }),
};

// 4. A runtime with the three hook chains and the `ask` policy.
const runtime = createToolRuntime({
  cwd,
  tools: [wordCount, appendLine, slowEcho],
  approval: 'ask',
  sandbox: 'workspace-write',
  hooks: {
    preExecute: [
      (call) =>
        call.toolName === 'append_line' && JSON.stringify(call.args).includes('secret')
          ? { decision: 'deny', reason: 'no secrets in notes' }
          : undefined,
    ],
    execute: [
      async (call, _context, next) => {
        const started = performance.now();
        try {
          return await next(); // a timeout or a thrown error surfaces here as a rejection
        } finally {
          const ms = (performance.now() - started).toFixed(1);
          console.log(`  [trace] ${call.toolName} took ${ms} ms`);
        }
      },
    ],
    postExecute: [
      (call, output) =>
        call.toolName === 'append_line' && !output.isError
          ? { ...output, content: `${output.content} (remember to review notes.md)` }
          : undefined,
    ],
  },
});
console.log(
  'the model sees:',
  runtime
    .specs()
    .map((spec) => spec.name)
    .join(', '),
);
console.log('word_count parameters:', JSON.stringify(runtime.specs()[2]?.parameters));

// 5. Run one batch the way the agent loop does, recording every event in a session.
const session = await Session.create({ store: createMemoryStore() });
const call = (id: string, name: string, args: unknown): ToolCallPart => ({
  type: 'tool-call',
  id,
  name,
  arguments: JSON.stringify(args),
});
const calls = [
  call('c1', 'word_count', { path: 'notes.md' }),
  call('c2', 'append_line', { path: 'notes.md', line: 'four' }),
  call('c3', 'append_line', { path: 'notes.md', line: 'secret: 42' }),
  call('c4', 'slow_echo', { text: 'hi' }),
  call('c5', 'word_count', { path: '../etc/passwd' }),
  call('c6', 'word_count', { file: 'notes.md' }),
];
session.append(
  'user/message',
  { content: 'Go.', source: 'user' },
  { turn: 1, surfaceOp: { op: 'append' } },
);
session.append(
  'assistant/message',
  { content: calls, finishReason: 'tool-calls' },
  { turn: 1, step: 1, surfaceOp: { op: 'append' } },
);
const at = { turn: 1, step: 1 };
await runtime.run(calls, {
  approve: async (request) => {
    console.log(`  [approval] ${request.toolName}: ${request.reason} → once`);
    return 'once';
  },
  onEvent: (event) => {
    if (event.type === 'approval') session.append('tool/approval', event.body, at);
    if (event.type === 'started') {
      const { toolCallId, toolName, arguments: args } = event;
      session.append('tool/started', { toolCallId, toolName, arguments: args }, at);
    }
    if (event.type === 'result')
      session.append('tool/result', event.body, { ...at, surfaceOp: { op: 'append' } });
  },
});
for (const event of session.events({ from: 4 })) {
  const body = event.body as {
    toolCallId: string;
    decision?: string;
    by?: string;
    outcome?: string;
    content?: string;
    meta?: unknown;
  };
  const detail =
    event.type === 'tool/approval'
      ? `${body.decision} by ${body.by}`
      : event.type === 'tool/result'
        ? `${body.outcome}: ${body.content?.split('\n')[0]} ${JSON.stringify(body.meta)}`
        : '';
  console.log(`#${event.seq} ${event.type} ${body.toolCallId} ${detail}`);
}
// 6. Your own approval policy: decides synchronously from the tool's declared permissions.
const noWrites: ApprovalPolicy = {
  specificationVersion: 1,
  name: 'no-writes',
  decide: (check) =>
    check.permissions.writesFiles
      ? { decision: 'deny', reason: 'this deployment is read-only' }
      : { decision: 'allow', reason: 'reads are fine' },
};
runtime.setApproval(noWrites);
const [refused] = await runtime.run([
  call('c7', 'append_line', { path: 'notes.md', line: 'five' }),
]);
console.log(`custom policy: ${refused?.outcome}: ${refused?.content}`);
console.log('notes.md now:', JSON.stringify(await readFile(join(cwd, 'notes.md'), 'utf8')));
await session.close();
await rm(cwd, { recursive: true, force: true });
