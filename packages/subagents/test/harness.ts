import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type Agent, createAgent, SystemPrompt } from '@spine/agent-loop';
import { createOpenAICompatibleModel, createRetryPolicy } from '@spine/llm';
import type {
  ModelClient,
  SandboxMode,
  SessionEvent,
  SessionStore,
  ToolResultBody,
  ToolRunOptions,
} from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import {
  createScriptedModelServer,
  type ReceivedRequest,
  type ScriptedModelServer,
  type ScriptedReply,
} from '@spine/test-utils';
import {
  type ApprovalPolicyName,
  createToolRuntime,
  createWorkspaceTools,
  type SandboxBackend,
  type ToolRuntime,
} from '@spine/tool-runtime';
import {
  type ChildToolsRequest,
  childLinks,
  createTaskTool,
  type TaskToolOptions,
} from '../src/index.js';

/** The files every test workspace starts with. */
export const WORKSPACE_FILES: Record<string, string> = {
  'src/math.ts':
    'export function computeTotal(items: number[]): number {\n  return items.reduce((a, b) => a + b, 0);\n}\n',
  'src/cart.ts':
    "import { computeTotal } from './math.js';\n\nexport const total = computeTotal([1, 2, 3]);\n",
  'README.md': '# shop\n',
};

/** Writes {@link WORKSPACE_FILES} into `dir` (again: a rerun starts from the same files). */
export function writeWorkspace(dir: string): void {
  for (const [path, text] of Object.entries(WORKSPACE_FILES)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/** A tool call in a scripted reply. */
export function call(
  id: string,
  name: string,
  args: unknown,
): { id: string; name: string; arguments: string } {
  return { id, name, arguments: JSON.stringify(args) };
}

/** A task call in a scripted reply. */
export function taskCall(
  id: string,
  profile: string,
  marker: string,
  description = `task ${marker}`,
) {
  return call(id, 'task', { description, prompt: `[[${marker}]] ${description}`, profile });
}

/** The conversation a request belongs to: the `[[marker]]` in its first user message. */
export function markerOf(request: ReceivedRequest): string {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content?: unknown }>;
  for (const message of messages) {
    if (message.role !== 'user' || typeof message.content !== 'string') continue;
    const found = /\[\[([a-z0-9-]+)\]\]/.exec(message.content);
    if (found) return found[1] as string;
  }
  return 'parent';
}

/** How many assistant messages a request carries (its step within the conversation). */
export function stepOf(request: ReceivedRequest): number {
  const messages = (request.body?.messages ?? []) as Array<{ role: string }>;
  return messages.filter((message) => message.role === 'assistant').length;
}

/**
 * A scripted model server that answers each conversation (parent, and each child by its marker)
 * from its own script, step by step, so parallel children get their own replies.
 */
export async function createRoutedServer(
  scripts: Record<string, ScriptedReply[]>,
): Promise<ScriptedModelServer> {
  return createScriptedModelServer({
    replies: (request) => {
      const script = scripts[markerOf(request)];
      const reply = script?.[stepOf(request)];
      return (
        reply ?? {
          error: {
            status: 400,
            body: JSON.stringify({
              error: {
                message: `no scripted reply for ${markerOf(request)} step ${stepOf(request)}`,
              },
            }),
          },
        }
      );
    },
  });
}

/** Options of {@link createTree}. */
export interface TreeOptions {
  scripts?: Record<string, ScriptedReply[]>;
  /** An already running server (a rerun passes none and a recorded model instead). */
  server?: ScriptedModelServer;
  model?: ModelClient;
  sandbox?: SandboxMode;
  approval?: ApprovalPolicyName;
  approve?: ToolRunOptions['approve'];
  sandboxBackend?: SandboxBackend | null;
  task?: Partial<TaskToolOptions>;
  workspace?: string;
  sessionDir?: string;
  /** Sees each request the task tool makes of the child-tools factory. */
  onToolsRequest?: (request: ChildToolsRequest) => void;
}

/** A parent agent with the workspace tools and the task tool, over a JSONL store. */
export interface Tree {
  workspace: string;
  sessionDir: string;
  store: SessionStore;
  server: ScriptedModelServer | undefined;
  session: Session;
  runtime: ToolRuntime;
  agent: Agent;
  close(): Promise<void>;
}

/** Builds a workspace, a store, a routed server and a parent agent whose runtime has `task`. */
export async function createTree(options: TreeOptions): Promise<Tree> {
  const workspace = options.workspace ?? mkdtempSync(join(tmpdir(), 'spine-sub-ws-'));
  if (!options.workspace) writeWorkspace(workspace);
  const sessionDir = options.sessionDir ?? mkdtempSync(join(tmpdir(), 'spine-sub-sessions-'));
  const store = createJsonlStore({ dir: sessionDir, fsync: 'never' });
  const server =
    options.server ?? (options.scripts ? await createRoutedServer(options.scripts) : undefined);
  const model =
    options.model ??
    createOpenAICompatibleModel({
      baseUrl: server?.baseUrl ?? 'http://127.0.0.1:9',
      apiKey: 'test-key',
      provider: 'deepseek',
      idleTimeoutMs: 10_000,
    });
  const backend = options.sandboxBackend === undefined ? null : options.sandboxBackend;
  const approval = options.approval ?? 'never-ask';
  const session = await Session.create({ store, cwd: workspace });
  const runtime = createToolRuntime({
    cwd: workspace,
    tools: createWorkspaceTools({ cwd: workspace, sandboxBackend: backend }),
    sandbox: options.sandbox ?? 'workspace-write',
    approval,
    sandboxBackend: backend,
  });
  const retryPolicy = createRetryPolicy({ baseDelayMs: 5, maxDelayMs: 20, jitter: 0 });
  runtime.register(
    createTaskTool({
      session,
      store,
      tools: runtime,
      sandbox: () => runtime.sandbox,
      model: { model, modelId: 'deepseek-v4-flash' },
      retryPolicy,
      createTools: (request) => {
        options.onToolsRequest?.(request);
        return createToolRuntime({
          cwd: workspace,
          tools: createWorkspaceTools({ cwd: workspace, sandboxBackend: backend }).filter((tool) =>
            request.tools.includes(tool.spec.name),
          ),
          sandbox: request.sandbox,
          approval,
          sandboxBackend: backend,
        });
      },
      ...(options.approve ? { approve: options.approve } : {}),
      ...options.task,
    }),
  );
  const agent = createAgent({
    session,
    model,
    modelId: 'deepseek-v4-flash',
    tools: runtime,
    systemPrompt: new SystemPrompt('You are a careful coding agent. Delegate with the task tool.'),
    retryPolicy,
    ...(options.approve ? { approve: options.approve } : {}),
  });
  return {
    workspace,
    sessionDir,
    store,
    server,
    session,
    runtime,
    agent,
    async close() {
      await session.close().catch(() => undefined);
      if (!options.server) await server?.close();
      if (!options.workspace) rmSync(workspace, { recursive: true, force: true });
      if (!options.sessionDir) rmSync(sessionDir, { recursive: true, force: true });
    },
  };
}

export const results = (events: readonly SessionEvent[]): ToolResultBody[] =>
  events.filter((e) => e.type === 'tool/result').map((e) => e.body as ToolResultBody);

/** The events of the parent's `index`-th child, read back from the store. */
export async function childEvents(tree: Tree, index = 0): Promise<readonly SessionEvent[]> {
  await tree.session.flush();
  const link = childLinks(tree.session.events())[index];
  if (!link) throw new Error(`no child #${index}`);
  const child = await Session.open({ store: tree.store, id: link.start.sessionId, readOnly: true });
  const events = child.events();
  await child.close();
  return events;
}
