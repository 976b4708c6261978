import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createJsonlStore, Session } from '@spine/session-log';
import { tmpDir } from '@spine/test-utils';
import { AI_SDK_EVENT_TYPES } from '../src/index.js';

/** A chat model of the AI SDK's OpenAI-compatible provider talking to `baseUrl`. */
export function loopbackModel(baseUrl: string, modelId = 'deepseek-v4-flash') {
  const provider = createOpenAICompatible({
    name: 'loopback',
    baseURL: baseUrl,
    apiKey: 'test-key',
    includeUsage: true,
  });
  return provider.chatModel(modelId);
}

/** A fresh JSONL-backed session in a temp dir, with its file path and a cleanup. */
export async function recordingSession(options: { chain?: boolean } = {}) {
  const dir = tmpDir('spine-ai-sdk-log-');
  const store = createJsonlStore({ dir, ...(options.chain === false ? { chain: false } : {}) });
  const session = await Session.create({
    store,
    title: 'ai-sdk test',
    eventTypes: AI_SDK_EVENT_TYPES,
  });
  return {
    session,
    path: join(dir, `${session.id}.jsonl`),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Flips one byte of the file at the first occurrence of `needle` (after `from`), keeping it JSON. */
export function flipByteAt(path: string, needle: string): void {
  const bytes = readFileSync(path);
  const at = bytes.indexOf(Buffer.from(needle, 'utf8'));
  if (at < 0) throw new Error(`${needle} not in ${path}`);
  // A letter to another letter: the line stays valid JSON, only its content changes.
  bytes[at] = (bytes[at] as number) ^ 0x20;
  writeFileSync(path, bytes);
}

/** The seq of the line holding `needle`. */
export function seqOfLineWith(path: string, needle: string): number {
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.includes(needle)) return JSON.parse(line).seq as number;
  }
  throw new Error(`${needle} not in ${path}`);
}
