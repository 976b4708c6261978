// Per-chunk overhead of ACP: one streamed text chunk as Spine's agent sends it (a
// `session/update` notification with an `agent_message_chunk`), through the SDK's connection and
// its NDJSON encoder into a byte sink, as `spine acp` writes to stdout. Target: ≤ 0.1 ms per
// chunk (median of 5 runs of 20,000 chunks).
import * as acp from '@agentclientprotocol/sdk';

const CHUNKS = 20_000;
const RUNS = 5;

async function run(): Promise<number> {
  let bytes = 0;
  const output = new WritableStream<Uint8Array>({
    write(chunk) {
      bytes += chunk.byteLength;
    },
  });
  // The editor's side never writes: the input stays open for the whole run.
  const input = new ReadableStream<Uint8Array>({ start() {} });
  let context: acp.AgentContext | undefined;
  const app = acp.agent().onConnect((connection) => {
    context = connection.client;
  });
  const connection = app.connect(acp.ndJsonStream(output, input));
  if (!context) throw new Error('no connection context');
  const client = context;
  const started = performance.now();
  let chain: Promise<unknown> = Promise.resolve();
  for (let i = 0; i < CHUNKS; i++) {
    const update: acp.SessionUpdate = {
      sessionUpdate: 'agent_message_chunk',
      content: { type: 'text', text: 'sixteen chars ok' },
      messageId: 'spine-live-1-1',
    };
    // As the agent queues them: in order, each after the one before.
    chain = chain.then(() => client.notify('session/update', { sessionId: 's', update }));
  }
  await chain;
  const elapsed = performance.now() - started;
  connection.close();
  if (bytes < CHUNKS * 50) throw new Error(`only ${bytes} bytes written`);
  return elapsed / CHUNKS;
}

const perChunk: number[] = [];
for (let i = 0; i < RUNS; i++) perChunk.push(await run());
perChunk.sort((a, b) => a - b);
const median = perChunk[Math.floor(RUNS / 2)] as number;
console.log(
  `per chunk: median ${median.toFixed(4)} ms (runs: ${perChunk.map((v) => v.toFixed(4)).join(', ')})`,
);
console.log(
  JSON.stringify({
    bench: 'acp chunk overhead',
    chunks: CHUNKS,
    medianMsPerChunk: Number(median.toFixed(4)),
    targetMs: 0.1,
    pass: median <= 0.1,
  }),
);
