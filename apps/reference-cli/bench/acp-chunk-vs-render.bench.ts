// A streamed text chunk sent to an editor over ACP against the same chunk shown by the CLI, in
// one run on the same machine. ACP: a `session/update` notification with an
// `agent_message_chunk`, through the SDK's connection and NDJSON encoder into a byte sink (what
// `spine acp` writes to stdout). CLI (the baseline): the `text-delta` event through
// `attachLiveOutput` with Markdown rendering into a byte sink (what `spine` shows in a terminal),
// and without Markdown (a pipe). Issue 36's target: ACP costs ≤ 0.1 ms per chunk; the ratio to
// the CLI's own path is reported beside it. Median of 5 runs of 20,000 chunks of 16 characters
// (a sentence every 8 chunks, a paragraph every 64, as a model's text arrives).
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import type { Agent } from '@spine/agent-loop';
import { attachLiveOutput, styleFor } from '@spine/tui';

const CHUNKS = 20_000;
const RUNS = 5;

/** Chunk `i` of the streamed answer. */
const chunk = (i: number): string =>
  i % 64 === 63 ? 'end of para.\n\n' : i % 8 === 7 ? 'a sentence ends. ' : 'sixteen chars ok';

async function acpRun(): Promise<number> {
  let bytes = 0;
  const output = new WritableStream<Uint8Array>({
    write(data) {
      bytes += data.byteLength;
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
      content: { type: 'text', text: chunk(i) },
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

async function cliRun(markdown: boolean): Promise<number> {
  let bytes = 0;
  const sink = new Writable({
    write(data: Buffer, _encoding, done) {
      bytes += data.byteLength;
      done();
    },
  });
  const agent = new EventEmitter() as unknown as Agent & EventEmitter;
  const style = styleFor({ isTTY: true }, { ...process.env, FORCE_COLOR: '1', NO_COLOR: '' });
  const detach = attachLiveOutput(
    agent,
    { text: sink, notices: sink },
    style,
    markdown ? { markdown: { width: 100 } } : {},
  );
  const started = performance.now();
  for (let i = 0; i < CHUNKS; i++) agent.emit('text-delta', { text: chunk(i) });
  agent.emit('turn-end', {});
  // Everything written has reached the sink.
  await new Promise<void>((resolve) => sink.end(resolve));
  const elapsed = performance.now() - started;
  detach();
  if (bytes < CHUNKS * 10) throw new Error(`only ${bytes} bytes rendered`);
  return elapsed / CHUNKS;
}

async function median(run: () => Promise<number>): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await run());
  runs.sort((a, b) => a - b);
  return runs[Math.floor(RUNS / 2)] as number;
}

const acpMs = await median(acpRun);
const terminalMs = await median(() => cliRun(true));
const pipeMs = await median(() => cliRun(false));
const fixed = (value: number) => Number(value.toFixed(4));
console.log(
  `per chunk: acp ${acpMs.toFixed(4)} ms, cli markdown ${terminalMs.toFixed(4)} ms, cli pipe ${pipeMs.toFixed(4)} ms`,
);
console.log(
  JSON.stringify({
    bench: 'acp chunk vs cli render',
    chunks: CHUNKS,
    acpMsPerChunk: fixed(acpMs),
    cliMarkdownMsPerChunk: fixed(terminalMs),
    cliPipeMsPerChunk: fixed(pipeMs),
    acpToCliMarkdown: Number((acpMs / terminalMs).toFixed(2)),
    acpToCliPipe: Number((acpMs / pipeMs).toFixed(2)),
    targetAcpMs: 0.1,
    pass: acpMs <= 0.1,
  }),
);
