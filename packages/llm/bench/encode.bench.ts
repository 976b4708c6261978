// Benchmark: encodeRequest on a 10,000-message history, cold (every message serialised) vs
// warm (one message appended; cached fragments reused). The warm encode should cost in
// proportion to the new message, so it is expected to be far cheaper than the cold one.
import type { Message, ModelClient, ModelRequest } from '@spine/protocol';
import { createAnthropicModel, createDeepSeekModel } from '../src/index.js';

const HISTORY = 10_000;
const ROUNDS = 20;

function history(count: number): Message[] {
  const messages: Message[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 3 === 0)
      messages.push({
        role: 'user',
        content: `Please look at file src/module-${i}.ts and fix the bug.`,
      });
    else if (i % 3 === 1) {
      messages.push({
        role: 'assistant',
        content: [
          { type: 'reasoning', text: `I should read module ${i} first.` },
          {
            type: 'tool-call',
            id: `call_${i}`,
            name: 'read_file',
            arguments: `{"path":"src/module-${i}.ts"}`,
          },
        ],
      });
    } else {
      messages.push({
        role: 'tool',
        toolCallId: `call_${i - 1}`,
        toolName: 'read_file',
        content: 'export const x = 1;\n'.repeat(20),
      });
    }
  }
  return messages;
}

function measure(label: string, make: () => ModelClient, request: ModelRequest) {
  // Cold: a fresh client each time, so nothing is cached.
  const cold: number[] = [];
  for (let round = 0; round < 5; round++) {
    const model = make();
    const started = performance.now();
    model.encodeRequest!(request);
    cold.push(performance.now() - started);
  }
  // Warm: the same client; each round appends one message to the previous history.
  const model = make();
  model.encodeRequest!(request);
  let current = request.messages;
  const warm: number[] = [];
  let bytes = 0;
  for (let round = 0; round < ROUNDS; round++) {
    current = [...current, { role: 'user', content: `step ${round}` }];
    const started = performance.now();
    const text = model.encodeRequest!({ ...request, messages: current });
    warm.push(performance.now() - started);
    bytes = text.length;
  }
  const median = (values: number[]): number =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  const coldMs = median(cold);
  const warmMs = median(warm);
  console.log(
    `${label}: ${(bytes / 1024 / 1024).toFixed(1)} MB body; cold ${coldMs.toFixed(2)} ms, warm (+1 message) ${warmMs.toFixed(3)} ms, ${(coldMs / warmMs).toFixed(0)}x`,
  );
  return {
    coldMs: Number(coldMs.toFixed(2)),
    warmAppendMs: Number(warmMs.toFixed(3)),
    pass: warmMs * 10 < coldMs,
  };
}

function main(): void {
  const messages = history(HISTORY);
  const tools = [
    {
      name: 'read_file',
      description: 'Read a file',
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    },
  ];
  const deepseek = measure('deepseek', () => createDeepSeekModel({ apiKey: 'bench' }), {
    model: 'deepseek-v4-flash',
    system: 'You are a coding agent.',
    messages,
    tools,
  });
  const anthropic = measure('anthropic', () => createAnthropicModel({ apiKey: 'bench' }), {
    model: 'claude-sonnet-4-5',
    system: 'You are a coding agent.',
    messages,
    tools,
  });
  console.log(
    JSON.stringify({
      bench: 'llm/encode',
      messages: HISTORY,
      deepseek,
      anthropic,
      pass: deepseek.pass && anthropic.pass,
    }),
  );
}

main();
