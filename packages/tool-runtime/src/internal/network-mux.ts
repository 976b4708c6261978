import { Duplex } from 'node:stream';

// A sandboxed command with a `domains` network policy has no network namespace route to the host,
// and its seccomp filter refuses Unix sockets. It inherits instead one end of a socket pair (fd 4)
// from Spine; a small forwarder inside the sandbox listens on 127.0.0.1:PORT and carries each TCP
// connection over that one stream as numbered frames: [type u8][id u32][length u32][payload].
// Spine demultiplexes them into proxy connections (see network-proxy.ts).

const OPEN = 1;
const DATA = 2;
const END = 3;
const CLOSE = 4;
const HEADER = 9;

/** The port the forwarder listens on inside the sandbox (its own network namespace). */
export const SANDBOX_PROXY_PORT = 3128;

/**
 * The forwarder, run inside the sandbox with `node -e` (argv: port, fd). It stops when the link
 * closes; the sandbox's PID namespace ends it with the command in any case.
 */
export const FORWARDER_SOURCE = `
const net = require('net'), fs = require('fs');
const port = Number(process.argv[1]), fd = Number(process.argv[2]);
const link = new net.Socket({ fd, readable: true, writable: true });
const conns = new Map(); let next = 1; let buffer = Buffer.alloc(0);
const frame = (type, id, data) => { const h = Buffer.alloc(${HEADER}); h[0] = type; h.writeUInt32BE(id, 1); h.writeUInt32BE(data ? data.length : 0, 5); link.write(data ? Buffer.concat([h, data]) : h); };
const server = net.createServer((c) => { const id = next++; conns.set(id, c); frame(${OPEN}, id);
  c.on('data', (d) => frame(${DATA}, id, d)); c.on('end', () => { if (conns.has(id)) frame(${END}, id); });
  c.on('close', () => { if (conns.delete(id)) frame(${CLOSE}, id); }); c.on('error', () => {}); });
link.on('data', (d) => { buffer = Buffer.concat([buffer, d]);
  while (buffer.length >= ${HEADER}) { const length = buffer.readUInt32BE(5); if (buffer.length < ${HEADER} + length) break;
    const type = buffer[0], id = buffer.readUInt32BE(1), payload = buffer.subarray(${HEADER}, ${HEADER} + length); buffer = buffer.subarray(${HEADER} + length);
    const c = conns.get(id); if (!c) continue;
    if (type === ${DATA}) c.write(payload); else if (type === ${END}) c.end(); else if (type === ${CLOSE}) { conns.delete(id); c.destroy(); } } });
link.on('close', () => process.exit(0)); link.on('error', () => process.exit(0));
server.listen(port, '127.0.0.1', () => fs.writeFileSync('/tmp/.spine-proxy-ready', ''));
`;

function frame(type: number, id: number, data?: Buffer): Buffer {
  const header = Buffer.alloc(HEADER);
  header[0] = type;
  header.writeUInt32BE(id, 1);
  header.writeUInt32BE(data ? data.length : 0, 5);
  return data ? Buffer.concat([header, data]) : header;
}

/** One multiplexed connection, seen from the host as an ordinary duplex stream. */
class Channel extends Duplex {
  constructor(
    private readonly id: number,
    private readonly link: Duplex,
    private readonly forget: (id: number) => void,
  ) {
    super();
  }
  override _read(): void {}
  override _write(
    chunk: Buffer,
    _encoding: BufferEncoding,
    done: (error?: Error | null) => void,
  ): void {
    // Respect the link's backpressure, so a fast upstream cannot fill memory for a slow command.
    if (!this.link.writable || this.link.write(frame(DATA, this.id, chunk))) done();
    else this.link.once('drain', () => done());
  }
  override _final(done: (error?: Error | null) => void): void {
    if (this.link.writable) this.link.write(frame(END, this.id));
    done();
  }
  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    if (this.forget(this.id) !== undefined && this.link.writable)
      this.link.write(frame(CLOSE, this.id));
    done(error);
  }
}

/**
 * Serves the host end of the link: every connection the forwarder opens becomes a duplex stream
 * handed to `onConnection` (the proxy). Bad frames end the link.
 */
export function serveMultiplexedLink(link: Duplex, onConnection: (channel: Duplex) => void): void {
  const channels = new Map<number, Channel>();
  const forget = (id: number): undefined | true => (channels.delete(id) ? true : undefined);
  let buffer = Buffer.alloc(0);
  link.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    while (buffer.length >= HEADER) {
      const length = buffer.readUInt32BE(5);
      if (length > 16 * 1024 * 1024) return link.destroy();
      if (buffer.length < HEADER + length) break;
      const type = buffer[0];
      const id = buffer.readUInt32BE(1);
      const payload = buffer.subarray(HEADER, HEADER + length);
      buffer = buffer.subarray(HEADER + length);
      if (type === OPEN && !channels.has(id)) {
        const channel = new Channel(id, link, forget);
        channel.on('error', () => undefined);
        channels.set(id, channel);
        onConnection(channel);
        continue;
      }
      const channel = channels.get(id);
      if (!channel) continue;
      if (type === DATA) channel.push(Buffer.from(payload));
      else if (type === END) channel.push(null);
      else if (type === CLOSE) {
        channels.delete(id);
        channel.destroy();
      }
    }
  });
  const closeAll = (): void => {
    for (const channel of channels.values()) channel.destroy();
    channels.clear();
  };
  link.on('close', closeAll);
  link.on('error', closeAll);
}
