// The host end of the multiplexed proxy link against a hostile peer: a command that took the link
// from the in-sandbox forwarder can send any frames it likes and stop reading. Real Unix-domain
// sockets stand in for the socket pair.
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { MUX_WINDOW, serveMultiplexedLink } from '../src/internal/network-mux.js';
import { makeTempDir } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A connected socket pair: `host` is served as the link, `peer` plays the forwarder. */
async function socketPair(): Promise<{ host: Socket; peer: Socket }> {
  const dir = makeTempDir('spine-mux-');
  const path = join(dir.dir, 'link.sock');
  const server = createServer();
  await new Promise<void>((done) => server.listen(path, done));
  const accepted = new Promise<Socket>((done) => server.once('connection', done));
  const { connect } = await import('node:net');
  const peer = connect(path);
  const host = await accepted;
  server.close();
  cleanups.push(() => {
    host.destroy();
    peer.destroy();
    dir.cleanup();
  });
  peer.on('error', () => undefined);
  host.on('error', () => undefined);
  return { host, peer };
}

function frame(type: number, id: number, payload = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(9);
  header[0] = type;
  header.writeUInt32BE(id, 1);
  header.writeUInt32BE(payload.length, 5);
  return Buffer.concat([header, payload]);
}

/** Writes `frames` with backpressure until done or the socket closes. */
async function pour(peer: Socket, frames: Iterable<Buffer>): Promise<void> {
  for (const data of frames) {
    if (peer.destroyed || peer.writableEnded) return;
    if (!peer.write(data))
      await new Promise<void>((done) => {
        peer.once('drain', done);
        peer.once('close', done);
      });
  }
}

describe('the multiplexed link against a hostile peer', () => {
  it('opens at most maxConnections channels, and closes a link whose peer floods without reading', async () => {
    const { host, peer } = await socketPair();
    peer.pause(); // never reads what the host answers
    let opened = 0;
    serveMultiplexedLink(host, () => opened++, { maxConnections: 2 });
    const closed = new Promise((done) => host.once('close', done));
    function* opens(): Generator<Buffer> {
      const batch: Buffer[] = [];
      for (let id = 1; id <= 2_000_000; id++) {
        batch.push(frame(1, id));
        if (batch.length === 1000) yield Buffer.concat(batch.splice(0));
      }
    }
    await Promise.race([pour(peer, opens()), closed]);
    await closed;
    expect(opened).toBe(2);
    expect(host.writableLength).toBeLessThanOrEqual(
      2 * (MUX_WINDOW + 128 * 1024) + 2 * 1024 * 1024,
    );
  });

  it('closes a channel whose peer sends past its window while nobody reads it', async () => {
    const { host, peer } = await socketPair();
    const channels: Duplex[] = [];
    serveMultiplexedLink(host, (channel) => channels.push(channel));
    peer.write(frame(1, 7));
    await new Promise((done) => setImmediate(done));
    const chunk = Buffer.alloc(64 * 1024, 'x');
    function* data(): Generator<Buffer> {
      for (let i = 0; i < 64; i++) yield frame(2, 7, chunk); // 4 MiB, never acknowledged
    }
    await pour(peer, data());
    for (let i = 0; i < 100 && !channels[0]?.destroyed; i++)
      await new Promise((done) => setTimeout(done, 10));
    expect(channels).toHaveLength(1);
    expect(channels[0]?.destroyed).toBe(true);
    expect(channels[0]?.readableLength ?? 0).toBeLessThanOrEqual(MUX_WINDOW + 128 * 1024);
  });
});
