// Generators of Anthropic Messages streams a real server (or an Anthropic-compatible proxy)
// could send: blocks of text, thinking (with signatures), redacted thinking, tool use with
// input split anywhere, unknown block and event types, pings, index gaps, missing stops.
import fc from 'fast-check';
import { type Expected, split, TOOL_ID } from './openai-streams.js';

/** One content block as sent. */
export type AnthropicBlock =
  | { kind: 'text'; pieces: string[] }
  | { kind: 'thinking'; pieces: string[]; signature: string }
  | { kind: 'redacted' }
  | { kind: 'tool'; id: string | undefined; name: string; pieces: string[]; inputInStart: boolean }
  | { kind: 'unknown' };

/** A generated Anthropic stream. */
export interface AnthropicStreamCase {
  blocks: AnthropicBlock[];
  /** Wire index of each block (gaps allowed, increasing). */
  indexGap: number;
  stopReason: string | null;
  messageStop: boolean;
  pings: number[];
  unknownEvents: number[];
  /** Content-neutral odd payloads (`null`, a delta for a block that was never started, …). */
  odd: Array<{ at: number; data: string }>;
  padding: boolean;
  usageInStart: boolean;
  error: { at: number; type: string } | null;
  splits: number[];
}

const TEXT = fc.string({
  unit: fc.constantFrom('a', 'é', '"', '\\', '\n', ' ', '😀'),
  maxLength: 10,
});
const PIECES = fc.array(TEXT, { minLength: 1, maxLength: 3 });
const INPUT = fc
  .constantFrom('{"path":"a.txt"}', '{}', '', '{"text":"é\\n"}', '{"broken":')
  .chain((text) =>
    fc.array(fc.nat({ max: text.length }), { maxLength: 3 }).map((cuts) => {
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

/** A generated Anthropic Messages stream. */
export const ANTHROPIC_CASE: fc.Arbitrary<AnthropicStreamCase> = fc.record({
  blocks: fc.array(
    fc.oneof(
      fc.record({ kind: fc.constant('text' as const), pieces: PIECES }),
      fc.record({
        kind: fc.constant('thinking' as const),
        pieces: PIECES,
        signature: fc.constantFrom('EqQBsig', ''),
      }),
      fc.record({ kind: fc.constant('redacted' as const) }),
      fc.record({
        kind: fc.constant('tool' as const),
        id: TOOL_ID.map((id) => (id === 'call_0' ? 'toolu_0' : id)),
        name: fc.constantFrom('echo', 'missing_tool'),
        pieces: INPUT,
        inputInStart: fc.boolean(),
      }),
      fc.record({ kind: fc.constant('unknown' as const) }),
    ),
    { maxLength: 4 },
  ),
  indexGap: fc.nat({ max: 2 }),
  stopReason: fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom('end_turn', 'tool_use', 'max_tokens', 'stop_sequence'),
    },
    { weight: 2, arbitrary: fc.constantFrom(null, 'pause_turn', 'refusal', 'brand_new_reason') },
  ),
  messageStop: fc.oneof(
    { weight: 4, arbitrary: fc.constant(true) },
    { weight: 1, arbitrary: fc.constant(false) },
  ),
  pings: fc.array(fc.nat({ max: 20 }), { maxLength: 3 }),
  unknownEvents: fc.array(fc.nat({ max: 20 }), { maxLength: 2 }),
  odd: fc.array(
    fc.record({
      at: fc.nat({ max: 20 }),
      data: fc.constantFrom(
        'null',
        '[]',
        '{}',
        '{"type":"content_block_delta","index":99,"delta":{"type":"text_delta","text":"lost"}}',
        '{"type":"content_block_delta","index":0,"delta":null}',
        '{"type":"content_block_stop","index":42}',
        '{"type":"content_block_start"}',
        '{"type":"message_delta","delta":null,"usage":null}',
        '{"type":"ping","extra":[1,2]}',
      ),
    }),
    { maxLength: 2 },
  ),
  padding: fc.boolean(),
  usageInStart: fc.boolean(),
  error: fc.oneof(
    { weight: 8, arbitrary: fc.constant(null) },
    {
      weight: 1,
      arbitrary: fc.record({
        at: fc.nat({ max: 12 }),
        type: fc.constantFrom('overloaded_error', 'api_error', 'invalid_request_error'),
      }),
    },
  ),
  splits: fc.array(fc.nat({ max: 4000 }), { maxLength: 3 }),
});

/** The SSE bytes of an Anthropic case, split into network writes. */
export function anthropicSse(c: AnthropicStreamCase): Buffer[] {
  const events: Array<[string, Record<string, unknown>]> = [];
  events.push([
    'message_start',
    {
      type: 'message_start',
      message: {
        id: 'msg_fuzz',
        type: 'message',
        role: 'assistant',
        model: 'claude-fuzz',
        content: [],
        stop_reason: null,
        ...(c.usageInStart
          ? { usage: { input_tokens: 20, cache_read_input_tokens: 0, output_tokens: 1 } }
          : {}),
      },
    },
  ]);
  c.blocks.forEach((block, position) => {
    const index = position * (c.indexGap + 1);
    const delta = (d: Record<string, unknown>) =>
      events.push(['content_block_delta', { type: 'content_block_delta', index, delta: d }]);
    switch (block.kind) {
      case 'text':
        events.push([
          'content_block_start',
          { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
        ]);
        for (const text of block.pieces) delta({ type: 'text_delta', text });
        break;
      case 'thinking':
        events.push([
          'content_block_start',
          {
            type: 'content_block_start',
            index,
            content_block: { type: 'thinking', thinking: '', signature: '' },
          },
        ]);
        for (const thinking of block.pieces) delta({ type: 'thinking_delta', thinking });
        if (block.signature) delta({ type: 'signature_delta', signature: block.signature });
        break;
      case 'redacted':
        events.push([
          'content_block_start',
          {
            type: 'content_block_start',
            index,
            content_block: { type: 'redacted_thinking', data: 'ENCRYPTED' },
          },
        ]);
        break;
      case 'tool': {
        const input = block.inputInStart ? { seed: 1 } : {};
        const start: Record<string, unknown> = { type: 'tool_use', name: block.name, input };
        if (block.id !== undefined) start.id = block.id;
        events.push([
          'content_block_start',
          { type: 'content_block_start', index, content_block: start },
        ]);
        if (!block.inputInStart)
          for (const partial of block.pieces)
            delta({ type: 'input_json_delta', partial_json: partial });
        break;
      }
      case 'unknown':
        events.push([
          'content_block_start',
          {
            type: 'content_block_start',
            index,
            content_block: { type: 'server_gadget', payload: { a: 1 } },
          },
        ]);
        delta({ type: 'gadget_delta', value: 'x' });
        break;
    }
    events.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  if (c.stopReason !== null)
    events.push([
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: c.stopReason, stop_sequence: null },
        usage: { output_tokens: 33 },
      },
    ]);
  if (c.messageStop) events.push(['message_stop', { type: 'message_stop' }]);
  for (const at of c.pings)
    events.splice(Math.min(at, events.length), 0, ['ping', { type: 'ping' }]);
  for (const at of c.unknownEvents)
    events.splice(Math.min(at, events.length), 0, [
      'future_event',
      { type: 'future_event', detail: { x: [1] } },
    ]);
  for (const odd of c.odd)
    events.splice(Math.min(odd.at, events.length), 0, [
      'odd',
      JSON.parse(odd.data) as Record<string, unknown>,
    ]);
  if (c.error) {
    // Before message_stop: after it the message is complete and a client stops reading.
    const stop = events.findIndex(([name]) => name === 'message_stop');
    const last = stop < 0 ? events.length : stop;
    events.splice(Math.min(c.error.at, last), events.length, [
      'error',
      { type: 'error', error: { type: c.error.type, message: 'Overloaded' } },
    ]);
  }
  const text = events
    .map(([name, data]) => {
      let json = JSON.stringify(data);
      if (c.padding && json.endsWith('}')) json = `${json.slice(0, -1)}      }`;
      return `event: ${name}\ndata: ${json}\n\n`;
    })
    .join('');
  return split(Buffer.from(text, 'utf8'), c.splits);
}

/** What a correct client makes of an Anthropic case. */
export function expectedAnthropic(c: AnthropicStreamCase): Expected {
  const fails = c.error !== null || (c.stopReason === null && !c.messageStop);
  let text = '';
  let reasoning = '';
  const calls: Expected['calls'] = [];
  for (const block of c.blocks) {
    if (block.kind === 'text') text += block.pieces.join('');
    else if (block.kind === 'thinking') reasoning += block.pieces.join('');
    else if (block.kind === 'tool') {
      const joined = block.pieces.join('');
      const args = block.inputInStart ? '{"seed":1}' : joined === '' ? '{}' : joined;
      calls.push({ name: block.name, arguments: args, providerId: block.id });
    }
  }
  return { fails, text, reasoning, calls };
}
