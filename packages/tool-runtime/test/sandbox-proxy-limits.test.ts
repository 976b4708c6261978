// A sandboxed command cannot make the Spine process hold what it sends through the domain proxy:
// real bubblewrap, the real in-sandbox forwarder and multiplexed link, a real Python client inside
// the sandbox, and real TCP servers on 127.0.0.1 standing in for allowed hosts. Host memory is
// sampled in this process (which runs the proxy) while the command runs.

import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createBashTool,
  createBwrapSandbox,
  createToolRuntime,
  type SandboxBackend,
} from '../src/index.js';
import { makeTempDir, runOne } from './helpers.js';

const MiB = 1024 * 1024;
let ws: { dir: string; cleanup: () => void };
let sink: Server;
let sinkPort: number;
let source: Server;
let sourcePort: number;
let sourceWritten = 0;
const held: Socket[] = [];
const backends: SandboxBackend[] = [];

beforeAll(async () => {
  ws = makeTempDir('spine-proxy-limits-');
  // An allowed host that accepts a connection and never reads from it.
  sink = createServer((socket) => {
    socket.pause();
    socket.on('error', () => undefined);
    held.push(socket);
  });
  await new Promise<void>((done) => sink.listen(0, '127.0.0.1', () => done()));
  sinkPort = (sink.address() as AddressInfo).port;
  // An allowed host that sends 256 MiB as fast as its reader takes it (respecting backpressure).
  source = createServer((socket) => {
    socket.on('error', () => undefined);
    held.push(socket);
    const chunk = Buffer.alloc(MiB, 'y');
    const pump = (): void => {
      while (sourceWritten < 256 * MiB && !socket.destroyed) {
        sourceWritten += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
    };
    pump();
  });
  await new Promise<void>((done) => source.listen(0, '127.0.0.1', () => done()));
  sourcePort = (source.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const backend of backends) backend.close?.();
  for (const socket of held) socket.destroy();
  await new Promise((done) => sink.close(done));
  await new Promise((done) => source.close(done));
  ws.cleanup();
});

function bash(domains: string[]) {
  const backend = createBwrapSandbox({
    network: {
      lookup: async () => ['127.0.0.1'],
      // Only the test servers' 127.0.0.1 counts as public here.
      checkAddress: (address) => (address === '127.0.0.1' ? undefined : 'refused'),
      headTimeoutMs: 3000,
    },
  });
  backends.push(backend);
  return (command: string) =>
    runOne(
      createToolRuntime({
        cwd: ws.dir,
        sandbox: 'workspace-write',
        approval: 'never-ask',
        tools: [createBashTool({ cwd: ws.dir, sandboxBackend: backend, network: { domains } })],
      }),
      'bash',
      { command, timeoutMs: 60_000 },
    );
}

/** Runs `task`, sampling this process's Buffer memory and RSS; returns their peak growth in MiB. */
async function peakGrowth<T>(
  task: () => Promise<T>,
): Promise<{ result: T; peakMiB: number; peakRssMiB: number }> {
  const base = process.memoryUsage();
  let peak = base.arrayBuffers;
  let peakRss = base.rss;
  const sample = (): void => {
    const now = process.memoryUsage();
    peak = Math.max(peak, now.arrayBuffers);
    peakRss = Math.max(peakRss, now.rss);
  };
  const sampler = setInterval(sample, 5);
  try {
    const result = await task();
    sample();
    return {
      result,
      peakMiB: (peak - base.arrayBuffers) / MiB,
      peakRssMiB: (peakRss - base.rss) / MiB,
    };
  } finally {
    clearInterval(sampler);
  }
}

// Python in the sandbox: open a proxy connection, send a head, read the answer's status line (when
// `readFirst`; else only after writing), write `total` MiB (stopping at the first error or after
// 3 s blocked) and print what it sent.
const writer = (head: string, total: number, readFirst = true): string => `/usr/bin/python3 - <<'PY'
import socket, time
def status(s):
    answer = b''
    try:
        while b'\\r\\n\\r\\n' not in answer:
            part = s.recv(4096)
            if not part: break
            answer += part
    except OSError as error:
        answer = type(error).__name__.encode()
    print('status', answer.split(b'\\r\\n')[0].decode())
s = socket.create_connection(('127.0.0.1', 3128))
s.sendall(${JSON.stringify(head)}.encode())
if ${readFirst ? 'True' : 'False'}: status(s)
s.settimeout(3)
chunk, sent = b'x' * (1 << 20), 0
try:
    for _ in range(${total}):
        s.sendall(chunk)
        sent += 1
except OSError as error:
    print('stopped', type(error).__name__)
print('sent MiB', sent)
if sent == ${total}:
    time.sleep(2)  # all of it was taken: give the host time to receive what is queued on the way
PY`;

describe('the domain proxy bounds what a command can make the host hold', () => {
  it('closes a refused connection both ways: 256 MiB written after a 403 is not queued', async () => {
    const run = bash([`sink.test:${sinkPort}`]);
    const { result, peakMiB, peakRssMiB } = await peakGrowth(() =>
      run(
        `${writer('CONNECT unlisted.test:443 HTTP/1.1\r\n\r\n', 256)}\n${writer('CONNECT unlisted.test:443 HTTP/1.1\r\n\r\n', 256, false)}`,
      ),
    );
    console.log(
      `after a 403: peak host growth: Buffers ${peakMiB.toFixed(1)} MiB, RSS ${peakRssMiB.toFixed(1)} MiB; ${result.content.replace(/\n/g, ' | ')}`,
    );
    expect(result.content).toMatch(
      /^status HTTP\/1\.1 403 Forbidden\nstopped (BrokenPipeError|ConnectionResetError)\n/,
    );
    // Written before reading the answer: cut off after at most a few windows.
    expect(result.content).toMatch(
      /\nstopped (BrokenPipeError|ConnectionResetError)\nsent MiB [0-9]\n/,
    );
    expect(peakMiB).toBeLessThan(48);
  }, 60_000);

  it('holds a bounded amount for a tunnel to an allowed host that never reads', async () => {
    const run = bash(['sink.test', `sink.test:${sinkPort}`]);
    const { result, peakMiB, peakRssMiB } = await peakGrowth(() =>
      run(writer(`CONNECT sink.test:${sinkPort} HTTP/1.1\r\n\r\n`, 256)),
    );
    console.log(
      `never-reading upstream: peak host growth: Buffers ${peakMiB.toFixed(1)} MiB, RSS ${peakRssMiB.toFixed(1)} MiB; ${result.content.replace(/\n/g, ' | ')}`,
    );
    expect(result.content).toMatch(/status HTTP\/1\.1 200 Connection Established/);
    expect(result.content).toMatch(/stopped TimeoutError/);
    expect(peakMiB).toBeLessThan(48);
  }, 60_000);

  it('keeps at most 64 connections of one command open, and times out heads that never finish', async () => {
    const run = bash([`sink.test:${sinkPort}`]);
    const result = await run(`/usr/bin/python3 - <<'PY'
import socket, select, time
socks = []
for _ in range(200):
    s = socket.create_connection(('127.0.0.1', 3128))
    s.sendall(b'CONNECT sink.test:443 HTTP/1.1\\r\\nHost: sink')
    socks.append(s)
time.sleep(1)
closed, _, _ = select.select(socks, [], [], 0)
print('open', len(socks) - len(closed))
late = [s for s in socks if s not in closed]
statuses, deadline = set(), time.time() + 8
for s in late:
    s.settimeout(max(0.01, deadline - time.time()))
    try:
        statuses.add(s.recv(64).split(b'\\r\\n')[0].decode())
    except OSError as error:
        statuses.add(type(error).__name__)
print('late answers', sorted(statuses))
PY`);
    console.log(`200 slow heads: ${result.content.replace(/\n/g, ' | ')}`);
    expect(result.content).toContain('open 64\n');
    expect(result.content).toContain("late answers ['HTTP/1.1 408 Request Timeout']");
  }, 60_000);

  it('holds a bounded amount, in Spine and in the forwarder, for a download the command never reads', async () => {
    const run = bash(['source.test', `source.test:${sourcePort}`]);
    const { result, peakMiB, peakRssMiB } = await peakGrowth(() =>
      run(`/usr/bin/python3 - <<'PY'
import os, socket, time
s = socket.create_connection(('127.0.0.1', 3128))
s.sendall(b'CONNECT source.test:${sourcePort} HTTP/1.1\\r\\n\\r\\n')
print('status', s.recv(39).split(b'\\r\\n')[0].decode())
time.sleep(3)
for pid in filter(str.isdigit, os.listdir('/proc')):
    try:
        if os.path.basename(os.readlink(f'/proc/{pid}/exe')).startswith('node'):
            rss = [l for l in open(f'/proc/{pid}/status') if l.startswith('VmRSS')][0].split()[1]
            print('forwarder RSS MiB', int(rss) // 1024)
    except OSError:
        pass
PY`),
    );
    const forwarderMiB = Number(/forwarder RSS MiB (\d+)/.exec(result.content)?.[1]);
    console.log(
      `unread download: peak host growth: Buffers ${peakMiB.toFixed(1)} MiB, RSS ${peakRssMiB.toFixed(1)} MiB; upstream wrote ${(sourceWritten / MiB).toFixed(0)} MiB; ${result.content.replace(/\n/g, ' | ')}`,
    );
    expect(result.content).toMatch(/status HTTP\/1\.1 200 Connection Established/);
    expect(peakMiB).toBeLessThan(48);
    // Node itself is ~40-60 MiB; an unbounded forwarder would hold the whole 256 MiB.
    expect(forwarderMiB).toBeLessThan(120);
    expect(sourceWritten).toBeLessThan(64 * MiB);
  }, 60_000);
});
