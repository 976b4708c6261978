import {
  type AssistantMessageBody,
  type ModelClient,
  ModelError,
  type ModelRequest,
  type ModelStreamEvent,
  type SessionEvent,
  type Summarizer,
} from '@spine/protocol';

/** Options of {@link createRecordedModel}. */
export interface RecordedModelOptions {
  /** The recorded session's events; its `assistant/message` events are replayed in order. */
  events: readonly SessionEvent[];
  /** Provider name reported in request headers (default: the recorded one, else `recorded`). */
  provider?: string;
}

/** A model client (protocol `ModelClient`) that answers from a recording, plus how far it got. */
export interface RecordedModel extends ModelClient {
  /** How many recorded outputs have been served. */
  readonly served: number;
  /** How many recorded outputs there are. */
  readonly total: number;
}

/**
 * A deterministic, offline model client: each `stream` call yields the next recorded
 * `assistant/message` of a session (text and reasoning as deltas, then `finish` with the
 * recorded message, finish reason and usage). Used by `spine rerun` to re-execute a session's
 * tool calls against the current code with no network.
 *
 * @throws a {@link ModelError} with code `INVALID_REQUEST` from `stream` when the recording has no
 *   output left.
 * @example
 * ```ts
 * const model = createRecordedModel({ events: session.events() });
 * for await (const event of model.stream(request)) console.log(event.type);
 * ```
 */
export function createRecordedModel(options: RecordedModelOptions): RecordedModel {
  const outputs = options.events
    .filter((event) => event.type === 'assistant/message')
    .map((event) => event.body as AssistantMessageBody);
  const provider = options.provider ?? outputs[0]?.provider ?? 'recorded';
  let served = 0;
  return {
    specificationVersion: 1,
    provider,
    get served() {
      return served;
    },
    get total() {
      return outputs.length;
    },
    encodeRequest(request: ModelRequest): string {
      return JSON.stringify({
        model: request.model,
        system: request.system,
        messages: request.messages,
        tools: request.tools,
      });
    },
    async *stream(request: ModelRequest, streamOptions = {}): AsyncIterable<ModelStreamEvent> {
      if (streamOptions.signal?.aborted) {
        throw new ModelError({ code: 'ABORTED', message: 'aborted', provider, retryable: false });
      }
      const body = outputs[served];
      if (!body) {
        throw new ModelError({
          code: 'INVALID_REQUEST',
          message: `the recording has only ${outputs.length} model outputs but request ${served + 1} was made; the current code takes a different path than the recorded session`,
          provider,
          retryable: false,
        });
      }
      served++;
      yield { type: 'start', model: body.model ?? request.model };
      for (const part of body.content) {
        if (part.type === 'reasoning') yield { type: 'reasoning-delta', text: part.text };
        else if (part.type === 'text') yield { type: 'text-delta', text: part.text };
      }
      let index = 0;
      for (const part of body.content) {
        if (part.type !== 'tool-call') continue;
        yield { type: 'tool-call-start', index, id: part.id, name: part.name };
        yield { type: 'tool-call-delta', index, argumentsDelta: part.arguments };
        index++;
      }
      yield {
        type: 'finish',
        message: { role: 'assistant', content: body.content },
        finishReason: normalizeFinish(body.finishReason),
        ...(body.rawFinishReason === undefined ? {} : { rawFinishReason: body.rawFinishReason }),
        ...(body.usage === undefined ? {} : { usage: body.usage }),
      };
    },
  };
}

function normalizeFinish(
  reason: string,
): Extract<ModelStreamEvent, { type: 'finish' }>['finishReason'] {
  const known = [
    'stop',
    'length',
    'tool-calls',
    'content-filter',
    'refusal',
    'context-overflow',
    'pause',
  ];
  return (known.includes(reason) ? reason : 'other') as Extract<
    ModelStreamEvent,
    { type: 'finish' }
  >['finishReason'];
}

/**
 * A summarizer (protocol `Summarizer`) that answers from a recording's `compaction/summary`
 * events in order, so a rerun's compactions get the recorded summaries without a model call.
 * A recorded summarizer failure is thrown again; with no recorded summary left it throws too
 * (the compaction engine then falls back to its deterministic checkpoint).
 */
export function createRecordedSummarizer(events: readonly SessionEvent[]): Summarizer {
  const summaries = events
    .filter((event) => event.type === 'compaction/summary')
    .map((event) => event.body as { summary?: string | null; summarizerError?: string | null });
  let next = 0;
  return {
    specificationVersion: 1,
    async summarize() {
      const recorded = summaries[next++];
      if (!recorded) throw new Error('the recording has no more compaction summaries');
      if (typeof recorded.summary !== 'string') {
        throw new Error(recorded.summarizerError ?? 'the recorded compaction had no summary');
      }
      return { summary: recorded.summary };
    },
  };
}
