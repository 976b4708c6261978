// Generators of OpenAI-compatible chat-completions answers a real server could send (DeepSeek,
// OpenAI, vLLM, llama.cpp, Ollama, OpenRouter): streamed as SSE, or as one JSON body. Each case
// carries what a correct client must make of it, so the fuzz suite checks content, not only
// that nothing crashed.
import fc from 'fast-check';

/** A tool call as the server sends it; `id: undefined` leaves the key out. */
export interface WireToolCall {
  /** Wire `index` (gaps allowed). */
  index: number;
  id: string | undefined;
  name: string;
  /** Arguments fragments, concatenated by the client. */
  pieces: string[];
  /** The name arrives in the second fragment, not the first. */
  nameLate: boolean;
}

/** One content item, in the order the model produced it. */
export type WireItem =
  | { kind: 'text'; pieces: string[] }
  | { kind: 'reasoning'; key: 'reasoning_content' | 'reasoning'; pieces: string[] }
  | { kind: 'refusal'; text: string };

/** How the stream ends and what rides along. */
export interface OpenAIStreamCase {
  items: WireItem[];
  calls: WireToolCall[];
  /** Fragments of different calls interleave (each call's own order kept). */
  interleave: boolean;
  /** Order of the calls' first fragments (a permutation of call positions). */
  order: number[];
  finish: string | null;
  usage: 'none' | 'finish' | 'separate' | 'every' | 'first' | 'odd';
  done: boolean;
  keepAlives: number[];
  unknownFields: boolean;
  crlf: boolean;
  /** An error payload replaces the chunk at this position (HTTP 200). */
  error: { at: number; shape: 'openai' | 'vllm'; message: string } | null;
  /** A line that is not JSON, at this position (the attempt then fails with STREAM_BROKEN). */
  garbageAt: number | null;
  /** Content-neutral odd chunks a proxy or a buggy server sends (`choices: null`, …), by position. */
  odd: Array<{ at: number; chunk: string }>;
  /** Network writes the bytes are split into. */
  splits: number[];
}

const TEXT = fc.string({
  unit: fc.constantFrom('a', 'é', '"', '\\', '\n', ' ', '{', '😀', 'x'),
  maxLength: 12,
});
const pieces = (text: fc.Arbitrary<string>) => fc.array(text, { minLength: 1, maxLength: 4 });

/** Arguments text: valid JSON or not, split into fragments at arbitrary points (bytes included). */
const ARGUMENTS = fc
  .oneof(
    fc
      .dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.string({ maxLength: 8 }), fc.integer()))
      .map((value) => JSON.stringify(value)),
    fc.constantFrom('', '{', '{"path":', 'not json', '{"a":"\\u00e9"}', '[]', 'null'),
  )
  .chain((text) =>
    fc.array(fc.nat({ max: Math.max(0, text.length) }), { maxLength: 4 }).map((cuts) => {
      const points = [...new Set(cuts)].sort((a, b) => a - b);
      const out: string[] = [];
      let from = 0;
      for (const point of points) {
        out.push(text.slice(from, point));
        from = point;
      }
      out.push(text.slice(from));
      return out;
    }),
  );

/** Ids a real server sends: its own, empty, missing, or one repeated (`call_0`). */
export const TOOL_ID = fc.oneof(
  fc.constant<string | undefined>(undefined),
  fc.constant(''),
  fc.constant('call_0'),
  fc.constant('call_1'),
  fc.string({
    unit: fc.constantFrom('a', 'b', '_', '0', '1', ':', '.'),
    minLength: 1,
    maxLength: 6,
  }),
);

const TOOL_CALLS = fc
  .array(
    fc.record({
      id: TOOL_ID,
      name: fc.constantFrom('echo', 'echo', 'missing_tool', ''),
      pieces: ARGUMENTS,
      nameLate: fc.boolean(),
    }),
    { maxLength: 3 },
  )
  .chain((calls) =>
    fc
      .uniqueArray(fc.nat({ max: 9 }), { minLength: calls.length, maxLength: calls.length })
      .map((indexes) => calls.map((call, i) => ({ ...call, index: indexes[i] as number }))),
  );

const ITEMS = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('text' as const), pieces: pieces(TEXT) }),
    fc.record({
      kind: fc.constant('reasoning' as const),
      key: fc.constantFrom('reasoning_content' as const, 'reasoning' as const),
      pieces: pieces(TEXT),
    }),
    fc.record({
      kind: fc.constant('refusal' as const),
      text: fc.constantFrom('I cannot help with that.', ''),
    }),
  ),
  { maxLength: 4 },
);

/** Chunks that carry nothing, in shapes real servers and proxies have been seen to send. */
const ODD_CHUNK = fc.constantFrom(
  '{"choices":[]}',
  '{"choices":null}',
  '{"choices":[null]}',
  '{"choices":[{"index":0,"delta":null,"finish_reason":null}]}',
  '{"choices":[{"index":0,"delta":{"content":null,"tool_calls":null}}]}',
  '{"choices":[{"index":0,"delta":{"tool_calls":[null]}}]}',
  '{"choices":[{"index":0,"delta":{"tool_calls":"none"}}]}',
  '{"choices":[{"index":0,"delta":{"content":42,"reasoning_content":{"x":1}}}]}',
  '{"choices":[{"index":0,"delta":{"role":"assistant"}}],"usage":null}',
  'null',
  '[]',
  '42',
  '"text"',
  '{}',
);

/** A generated OpenAI-style answer (the same case feeds the SSE and the JSON-body formats). */
export const OPENAI_CASE: fc.Arbitrary<OpenAIStreamCase> = fc
  .record({
    items: ITEMS,
    calls: TOOL_CALLS,
    interleave: fc.boolean(),
    finish: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('stop', 'tool_calls', 'length') },
      {
        weight: 3,
        arbitrary: fc.constantFrom(
          null,
          'content_filter',
          'weird_reason',
          'insufficient_system_resource',
          'function_call',
        ),
      },
    ),
    usage: fc.constantFrom('none', 'finish', 'separate', 'every', 'first', 'odd') as fc.Arbitrary<
      OpenAIStreamCase['usage']
    >,
    done: fc.oneof(
      { weight: 4, arbitrary: fc.constant(true) },
      { weight: 1, arbitrary: fc.constant(false) },
    ),
    keepAlives: fc.array(fc.nat({ max: 20 }), { maxLength: 3 }),
    unknownFields: fc.boolean(),
    crlf: fc.boolean(),
    error: fc.oneof(
      { weight: 8, arbitrary: fc.constant(null) },
      {
        weight: 1,
        arbitrary: fc.record({
          at: fc.nat({ max: 12 }),
          shape: fc.constantFrom('openai' as const, 'vllm' as const),
          message: fc.constantFrom(
            'Internal server error',
            'the request exceeds the available context size, try increasing it',
            'Rate limit reached',
            'bad things',
          ),
        }),
      },
    ),
    garbageAt: fc.oneof(
      { weight: 6, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.nat({ max: 12 }) },
    ),
    odd: fc.array(fc.record({ at: fc.nat({ max: 12 }), chunk: ODD_CHUNK }), { maxLength: 2 }),
    splits: fc.array(fc.nat({ max: 4000 }), { maxLength: 3 }),
    seed: fc.nat(),
  })
  .map(({ seed, ...rest }) => {
    const order = rest.calls.map((_, i) => i);
    // A deterministic shuffle from the seed: first fragments may come in any index order.
    for (let i = order.length - 1; i > 0; i--) {
      const j = (seed + i * 7) % (i + 1);
      [order[i], order[j]] = [order[j] as number, order[i] as number];
    }
    return { ...rest, order };
  });

const USAGE = {
  prompt_tokens: 40,
  completion_tokens: 9,
  total_tokens: 49,
  prompt_cache_hit_tokens: 0,
  prompt_cache_miss_tokens: 40,
};
const ODD_USAGE = {
  prompt_tokens: null,
  completion_tokens: -3,
  total_tokens: 'many',
  prompt_tokens_details: null,
  cost: -1,
};

/** The chunk objects (and raw lines) of a case, in wire order. */
function chunksOf(c: OpenAIStreamCase): Array<Record<string, unknown> | string> {
  const head = {
    id: 'chatcmpl-fuzz',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'fuzz-model',
  };
  const extra = c.unknownFields ? { obfuscation: 'xyz', p: 'abc', system_fingerprint: 'fp' } : {};
  const chunk = (
    delta: Record<string, unknown>,
    finish: string | null = null,
  ): Record<string, unknown> => ({
    ...head,
    ...extra,
    choices: [
      { index: 0, delta, finish_reason: finish, ...(c.unknownFields ? { logprobs: null } : {}) },
    ],
    ...(c.usage === 'every' ? { usage: USAGE } : {}),
  });
  const out: Array<Record<string, unknown> | string> = [chunk({ role: 'assistant', content: '' })];
  for (const item of c.items) {
    if (item.kind === 'text')
      for (const text of item.pieces) out.push(chunk({ content: text, reasoning_content: null }));
    else if (item.kind === 'reasoning')
      for (const text of item.pieces) out.push(chunk({ [item.key]: text, content: null }));
    else out.push(chunk({ refusal: item.text }));
  }
  // Tool call fragments: each call's first fragment in `order`, the rest interleaved or not.
  const fragments: Array<Array<Record<string, unknown>>> = c.order.map((position) => {
    const call = c.calls[position] as WireToolCall;
    const first: Record<string, unknown> = {
      index: call.index,
      type: 'function',
      function: { name: call.nameLate ? '' : call.name, arguments: call.pieces[0] ?? '' },
    };
    if (call.id !== undefined) first.id = call.id;
    const rest: Array<Record<string, unknown>> = call.pieces.slice(1).map((text, i) => ({
      index: call.index,
      function: { ...(i === 0 && call.nameLate ? { name: call.name } : {}), arguments: text },
    }));
    if (call.nameLate && rest.length === 0)
      rest.push({ index: call.index, function: { name: call.name } });
    return [first, ...rest];
  });
  if (c.interleave) {
    for (let round = 0; fragments.some((list) => list.length > round); round++)
      for (const list of fragments) if (list[round]) out.push(chunk({ tool_calls: [list[round]] }));
  } else {
    for (const list of fragments)
      for (const fragment of list) out.push(chunk({ tool_calls: [fragment] }));
  }
  const final = chunk({}, c.finish);
  if (c.usage === 'finish') final.usage = USAGE;
  if (c.usage === 'first' && out[0] && typeof out[0] === 'object') out[0].usage = USAGE;
  if (c.usage === 'odd' && out[0] && typeof out[0] === 'object') out[0].usage = ODD_USAGE;
  if (c.finish !== null || c.usage !== 'none') out.push(final);
  if (c.usage === 'separate') out.push({ ...head, choices: [], usage: USAGE });
  if (c.garbageAt !== null) out.splice(Math.min(c.garbageAt, out.length), 0, '{"truncated": ');
  for (const odd of c.odd) out.splice(Math.min(odd.at, out.length), 0, odd.chunk);
  if (c.error) {
    const error =
      c.error.shape === 'openai'
        ? { error: { message: c.error.message, type: 'server_error', code: null } }
        : {
            object: 'error',
            message: c.error.message,
            type: 'BadRequestError',
            param: null,
            code: 400,
          };
    out.splice(Math.min(c.error.at, out.length), out.length, error);
  }
  return out;
}

/** The SSE bytes of a case, split into network writes. */
export function openAISse(c: OpenAIStreamCase): Buffer[] {
  const eol = c.crlf ? '\r\n' : '\n';
  const frames = chunksOf(c).map(
    (chunk) => `data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}${eol}${eol}`,
  );
  for (const at of c.keepAlives)
    frames.splice(Math.min(at, frames.length), 0, `: keep-alive${eol}${eol}`);
  if (c.done && !c.error) frames.push(`data: [DONE]${eol}${eol}`);
  return split(Buffer.from(frames.join(''), 'utf8'), c.splits);
}

/** The same answer as one non-streaming `chat.completion` body (with DeepSeek's leading blank lines). */
export function openAIJson(c: OpenAIStreamCase): Buffer[] {
  let text = '';
  let reasoning: string | undefined;
  for (const item of c.items) {
    if (item.kind === 'text') text += item.pieces.join('');
    else if (item.kind === 'reasoning') reasoning = (reasoning ?? '') + item.pieces.join('');
    else text += item.text;
  }
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: text === '' && c.calls.length > 0 ? null : text,
  };
  if (reasoning !== undefined) message.reasoning_content = reasoning;
  if (c.calls.length > 0) {
    message.tool_calls = c.order.map((position) => {
      const call = c.calls[position] as WireToolCall;
      return {
        index: call.index,
        ...(call.id === undefined ? {} : { id: call.id }),
        type: 'function',
        function: { name: call.name, arguments: call.pieces.join('') },
      };
    });
  }
  const body: Record<string, unknown> = c.error
    ? c.error.shape === 'openai'
      ? { error: { message: c.error.message, type: 'server_error', code: null } }
      : {
          object: 'error',
          message: c.error.message,
          type: 'BadRequestError',
          param: null,
          code: 400,
        }
    : {
        id: 'chatcmpl-fuzz',
        object: 'chat.completion',
        model: 'fuzz-model',
        ...(c.unknownFields ? { system_fingerprint: 'fp', extra: { nested: [1, 2] } } : {}),
        choices: [{ index: 0, message, finish_reason: c.finish }],
        ...(c.usage === 'none' ? {} : { usage: c.usage === 'odd' ? ODD_USAGE : USAGE }),
      };
  const blank = c.keepAlives.map(() => (c.crlf ? '\r\n' : '\n')).join('');
  return split(Buffer.from(`${blank}${JSON.stringify(body)}`, 'utf8'), c.splits);
}

/** Splits bytes at the given offsets (anywhere: inside a line, a UTF-8 character, a JSON string). */
export function split(bytes: Buffer, offsets: number[]): Buffer[] {
  const points = [...new Set(offsets.map((offset) => offset % Math.max(1, bytes.length)))].sort(
    (a, b) => a - b,
  );
  const out: Buffer[] = [];
  let from = 0;
  for (const point of points) {
    if (point <= from) continue;
    out.push(bytes.subarray(from, point));
    from = point;
  }
  out.push(bytes.subarray(from));
  return out;
}

/** What a correct client makes of a case that ends well: text, reasoning and calls in order. */
export interface Expected {
  /** The turn must end with an error (broken stream, error payload, provider fault). */
  fails: boolean;
  text: string;
  reasoning: string;
  calls: Array<{ name: string; arguments: string; providerId: string | undefined }>;
}

/** The expected outcome of an OpenAI-style case (`json`: the non-streaming body). */
export function expectedOpenAI(c: OpenAIStreamCase, json: boolean): Expected {
  const fails =
    c.error !== null ||
    c.finish === 'insufficient_system_resource' ||
    (!json && c.finish === null && !c.done) ||
    // A data line that is not JSON breaks the attempt (STREAM_BROKEN): it is never skipped.
    (!json && c.garbageAt !== null);
  let text = '';
  let reasoning = '';
  for (const item of c.items) {
    if (item.kind === 'text') text += item.pieces.join('');
    else if (item.kind === 'reasoning') reasoning += item.pieces.join('');
    else text += item.text;
  }
  const calls = c.order.map((position) => {
    const call = c.calls[position] as WireToolCall;
    return { name: call.name, arguments: call.pieces.join(''), providerId: call.id };
  });
  return { fails, text, reasoning, calls };
}
