import type {
  FinishReason,
  Message,
  ModelClient,
  ModelRequest,
  ModelStreamEvent,
  Usage,
} from '@spine/protocol';

/** The events of one stream plus its finish event, or the error it threw. */
export interface Collected {
  events: ModelStreamEvent[];
  finish: Extract<ModelStreamEvent, { type: 'finish' }>;
}

/** Runs a stream to the end and returns its events; throws what the stream throws. */
export async function collect(
  model: ModelClient,
  request: ModelRequest,
  signal?: AbortSignal,
): Promise<Collected> {
  const events: ModelStreamEvent[] = [];
  for await (const event of model.stream(request, { signal })) events.push(event);
  const finish = events.at(-1);
  if (finish?.type !== 'finish') throw new Error('stream did not end with a finish event');
  return { events, finish };
}

/** Runs a stream, expecting it to throw; returns the error and the events seen before. */
export async function collectError(
  model: ModelClient,
  request: ModelRequest,
  signal?: AbortSignal,
): Promise<{ error: unknown; events: ModelStreamEvent[] }> {
  const events: ModelStreamEvent[] = [];
  try {
    for await (const event of model.stream(request, { signal })) events.push(event);
  } catch (error) {
    return { error, events };
  }
  throw new Error(`expected the stream to fail; it finished with ${events.length} events`);
}

/** A small request. */
export function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  const messages: Message[] = [{ role: 'user', content: 'What is the weather in San Francisco?' }];
  return { model: 'deepseek-v4-flash', system: 'Be terse.', messages, tools: [], ...overrides };
}

/** Text deltas joined. */
export function textDeltas(
  events: ModelStreamEvent[],
  kind: 'text-delta' | 'reasoning-delta' = 'text-delta',
): string {
  return events.map((event) => (event.type === kind ? event.text : '')).join('');
}

/** Shorthand for the expected finish shape. */
export type FinishShape = { finishReason: FinishReason; usage?: Usage };
