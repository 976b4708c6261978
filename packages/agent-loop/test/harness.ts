import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAICompatibleModel, createRetryPolicy } from '@spine/llm';
import type {
  CompactionEngine,
  ModelClient,
  SessionEvent,
  SessionLog,
  ToolDefinition,
} from '@spine/protocol';
import { createJsonlStore, Session } from '@spine/session-log';
import {
  createScriptedModelServer,
  type ScriptedModelServer,
  type ScriptedReply,
} from '@spine/test-utils';
import {
  createToolRuntime,
  createWorkspaceTools,
  defineTool,
  type ToolRuntime,
} from '@spine/tool-runtime';
import { z } from 'zod';
import {
  type Agent,
  type AgentOptions,
  createAgent,
  createEnvironmentContribution,
  replay,
  SystemPrompt,
} from '../src/index.js';

/** Everything an end-to-end test needs: a workspace, a session, a scripted server, an agent. */
export interface Harness {
  workspace: string;
  sessionDir: string;
  server: ScriptedModelServer;
  model: ModelClient;
  session: Session;
  runtime: ToolRuntime;
  agent: Agent;
  prompt: SystemPrompt;
  /** Events of the given type. */
  events(type: string): SessionEvent[];
  /** Asserts every recorded request replays (and, unless told otherwise, that there is one). */
  replayOk(session?: SessionLog, options?: { allowNone?: boolean }): void;
  close(): Promise<void>;
}

/** Options of {@link createHarness}. */
export interface HarnessOptions {
  replies: ScriptedReply[];
  promptCache?: boolean;
  extraTools?: ToolDefinition<never>[];
  approval?: 'ask' | 'auto-edit' | 'never-ask' | 'deny-all';
  maxSteps?: number;
  compaction?: CompactionEngine;
  meter?: AgentOptions['meter'];
  contextWindow?: number;
  approve?: AgentOptions['approve'];
  beforeTools?: AgentOptions['beforeTools'];
  beforeTurnEnd?: AgentOptions['beforeTurnEnd'];
  loops?: AgentOptions['loops'];
}

/** A concurrency-safe tool that waits `ms` (honouring abort) and echoes `text`. */
export const sleepEchoTool = defineTool({
  name: 'sleep_echo',
  description: 'Waits ms milliseconds, then returns text.',
  parameters: z.object({ ms: z.number().int().min(0), text: z.string() }),
  isConcurrencySafe: true,
  async execute(args, context) {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, args.ms);
      context.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error('aborted while sleeping'));
      });
    });
    return { content: `${args.text} at ${Date.now()}` };
  },
}) as unknown as ToolDefinition<never>;

/** Starts a scripted server, a JSONL session in a temp dir and an agent with the workspace tools. */
export async function createHarness(options: HarnessOptions): Promise<Harness> {
  const workspace = mkdtempSync(join(tmpdir(), 'spine-ws-'));
  const sessionDir = mkdtempSync(join(tmpdir(), 'spine-sessions-'));
  const server = await createScriptedModelServer({
    replies: options.replies,
    promptCache: options.promptCache ?? false,
  });
  const model = createOpenAICompatibleModel({
    baseUrl: server.baseUrl,
    apiKey: 'test-key',
    provider: 'deepseek',
    idleTimeoutMs: 3_000,
  });
  const session = await Session.create({
    store: createJsonlStore({ dir: sessionDir, fsync: 'never' }),
    cwd: workspace,
  });
  const runtime = createToolRuntime({
    cwd: workspace,
    tools: [
      ...createWorkspaceTools({ cwd: workspace, sandboxBackend: null }),
      sleepEchoTool,
      ...(options.extraTools ?? []),
    ],
    approval: options.approval ?? 'never-ask',
    sandboxBackend: null,
  });
  const prompt = new SystemPrompt('You are a careful coding agent. Read before you edit.');
  prompt.register(
    createEnvironmentContribution({
      cwd: workspace,
      sandbox: 'workspace-write',
      now: () => new Date('2026-11-30T10:00:00Z'),
    }),
  );
  const agent = createAgent({
    session,
    model,
    modelId: 'deepseek-v4-flash',
    tools: runtime,
    systemPrompt: prompt,
    retryPolicy: createRetryPolicy({ baseDelayMs: 5, maxDelayMs: 20, jitter: 0 }),
    ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
    ...(options.compaction ? { compaction: options.compaction } : {}),
    ...(options.meter ? { meter: options.meter } : {}),
    ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
    ...(options.approve ? { approve: options.approve } : {}),
    ...(options.beforeTools ? { beforeTools: options.beforeTools } : {}),
    ...(options.beforeTurnEnd ? { beforeTurnEnd: options.beforeTurnEnd } : {}),
    ...(options.loops ? { loops: options.loops } : {}),
  });
  return {
    workspace,
    sessionDir,
    server,
    model,
    session,
    runtime,
    agent,
    prompt,
    events: (type) => session.events().filter((event) => event.type === type),
    replayOk(target = session, options = {}) {
      const report = replay(target, { model });
      if (!report.ok) throw new Error(`replay failed: ${JSON.stringify(report.firstMismatch)}`);
      if (report.requests.length === 0 && !options.allowNone) {
        throw new Error('replay found no requests');
      }
    },
    async close() {
      await session.close().catch(() => undefined);
      await server.close();
      rmSync(workspace, { recursive: true, force: true });
      rmSync(sessionDir, { recursive: true, force: true });
    },
  };
}

/** The messages of a received chat request, as the wire carries them. */
export function wireMessages(request: {
  body: unknown;
}): Array<{ role: string; content?: string; tool_call_id?: string }> {
  return (
    request.body as { messages: Array<{ role: string; content?: string; tool_call_id?: string }> }
  ).messages;
}

/**
 * Ends a test's harness: every recorded request must rebuild from the log alone, and the harness
 * closes even when that check fails.
 */
export async function replayThenClose(harness: Harness | undefined): Promise<void> {
  try {
    harness?.replayOk(undefined, { allowNone: true });
  } finally {
    await harness?.close();
  }
}
