// Builders for scripted session histories used by the compaction tests and benchmarks.
import type { SessionLog } from '@spine/protocol';
import { createMemoryStore, Session } from '@spine/session-log';

/** A fresh in-memory session. */
export async function newSession(): Promise<Session> {
  return Session.create({ store: createMemoryStore(), cwd: '/work/project' });
}

/** Appends a user request (or another source) to the surface. */
export function say(
  session: SessionLog,
  content: string,
  options: { turn?: number; source?: string; pinned?: boolean } = {},
): number {
  const body = {
    content,
    source: options.source ?? 'user',
    ...(options.pinned ? { pinned: true } : {}),
  };
  return session.append('user/message', body, {
    surfaceOp: { op: 'append' },
    ...(options.turn !== undefined ? { turn: options.turn } : {}),
  }).seq;
}

/** Appends an assistant text reply. */
export function reply(
  session: SessionLog,
  text: string,
  where: { turn?: number; step?: number } = {},
): number {
  return session.append(
    'assistant/message',
    { content: [{ type: 'text', text }], finishReason: 'stop' },
    { surfaceOp: { op: 'append' }, ...where },
  ).seq;
}

/** One proposed tool call. */
export interface PlannedCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** Appends an assistant message proposing `calls`. */
export function propose(
  session: SessionLog,
  calls: readonly PlannedCall[],
  where: { turn?: number; step?: number } = {},
): number {
  const content = calls.map((call) => ({
    type: 'tool-call' as const,
    id: call.id,
    name: call.name,
    arguments: JSON.stringify(call.args),
  }));
  return session.append(
    'assistant/message',
    { content, finishReason: 'tool-calls' },
    { surfaceOp: { op: 'append' }, ...where },
  ).seq;
}

/** Appends the result of a call. */
export function answer(
  session: SessionLog,
  call: PlannedCall,
  content: string,
  options: { isError?: boolean; exitCode?: number; turn?: number; step?: number } = {},
): number {
  const meta = options.exitCode !== undefined ? { exitCode: options.exitCode } : undefined;
  return session.append(
    'tool/result',
    {
      toolCallId: call.id,
      toolName: call.name,
      content,
      isError: options.isError === true,
      ...(meta ? { meta } : {}),
    },
    {
      surfaceOp: { op: 'append' },
      ...(options.turn !== undefined ? { turn: options.turn } : {}),
      ...(options.step !== undefined ? { step: options.step } : {}),
    },
  ).seq;
}

/** One full tool step: a call and its result. */
export function toolStep(
  session: SessionLog,
  call: PlannedCall,
  content: string,
  options: { isError?: boolean; exitCode?: number; turn?: number; step?: number } = {},
): void {
  const where = {
    ...(options.turn !== undefined ? { turn: options.turn } : {}),
    ...(options.step !== undefined ? { step: options.step } : {}),
  };
  propose(session, [call], where);
  answer(session, call, content, options);
}

/** Filler text of roughly `words` words, varied by `seed`. */
export function filler(words: number, seed: number): string {
  const vocabulary = [
    'alpha',
    'parser',
    'token',
    'module',
    'config',
    'render',
    'buffer',
    'stream',
    'index',
    'schema',
  ];
  const out: string[] = [];
  for (let index = 0; index < words; index++) {
    out.push(vocabulary[(index * 7 + seed * 13) % vocabulary.length] as string);
  }
  return out.join(' ');
}
