import { Duplex } from 'node:stream';

// A sandboxed command with a `domains` network policy has no network namespace route to the host,
// and its seccomp filter refuses Unix sockets. It inherits instead one end of a socket pair (fd 4)
// from Spine; a small forwarder inside the sandbox listens on 127.0.0.1:PORT and carries each TCP
// connection over that one stream as numbered frames: [type u8][id u32][length u32][payload].
// Spine demultiplexes them into proxy connections (see network-proxy.ts).
//
// Flow control, both ways: each side may have at most WINDOW bytes of a connection's DATA
// unacknowledged; the receiver returns credit (a WINDOW frame) only once the bytes have left it
// (written to the socket, or read by the proxy). A peer that never reads therefore holds at most
// one window per connection, whichever side it is on, and the forwarder pauses the command's
// socket while it has no credit.

const OPEN = 1;
const DATA = 2;
const END = 3;
const CLOSE = 4;
const CREDIT = 5;
const HEADER = 9;

/** Bytes of DATA one side may send on a connection before the other acknowledges them. */
export const MUX_WINDOW = 256 * 1024;
/** Connections one command may have open through the proxy at once; more are closed at once. */
export const MAX_CONNECTIONS_PER_COMMAND = 64;
// Largest DATA frame either side sends (a socket read is at most 64 KiB).
const MAX_FRAME = 64 * 1024;
// What a receiver tolerates beyond the window before it closes the connection (the forwarder may
// overshoot its credit by one socket read).
const SLACK = 2 * MAX_FRAME;

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
const grant = (id, n) => { if (!conns.has(id)) return; const b = Buffer.alloc(4); b.writeUInt32BE(n); frame(${CREDIT}, id, b); };
const server = net.createServer((c) => { const id = next++; c.credit = ${MUX_WINDOW}; conns.set(id, c); frame(${OPEN}, id);
  c.on('data', (d) => { for (let i = 0; i < d.length; i += ${MAX_FRAME}) frame(${DATA}, id, d.subarray(i, i + ${MAX_FRAME})); c.credit -= d.length; if (c.credit <= 0) c.pause(); });
  c.on('end', () => { if (conns.has(id)) frame(${END}, id); });
  c.on('close', () => { if (conns.delete(id)) frame(${CLOSE}, id); }); c.on('error', () => {}); });
link.on('data', (d) => { buffer = Buffer.concat([buffer, d]);
  while (buffer.length >= ${HEADER}) { const length = buffer.readUInt32BE(5); if (buffer.length < ${HEADER} + length) break;
    const type = buffer[0], id = buffer.readUInt32BE(1), payload = Buffer.from(buffer.subarray(${HEADER}, ${HEADER} + length)); buffer = buffer.subarray(${HEADER} + length);
    const c = conns.get(id); if (!c) continue;
    if (type === ${DATA}) c.write(payload, () => grant(id, payload.length));
    else if (type === ${CREDIT} && length === 4) { c.credit += payload.readUInt32BE(0); if (c.credit > 0) c.resume(); }
    else if (type === ${END}) c.end(); else if (type === ${CLOSE}) { conns.delete(id); c.destroy(); } } });
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

/** The host end of the link as channels see it: whether it is open, and how to send a frame. */
interface Link {
  readonly writable: boolean;
  write(frame: Buffer): void;
}

/** One multiplexed connection, seen from the host as an ordinary duplex stream. */
class Channel extends Duplex {
  private sendCredit = MUX_WINDOW;
  private unacknowledged = 0;
  private pending: { chunk: Buffer; done: (error?: Error | null) => void } | undefined;

  constructor(
    private readonly id: number,
    private readonly link: Link,
    private readonly forget: (id: number) => boolean,
  ) {
    super();
  }

  /** DATA from the forwarder: buffered here, acknowledged once the proxy has read it. */
  receive(payload: Buffer): void {
    this.unacknowledged += payload.length;
    if (this.unacknowledged > MUX_WINDOW + SLACK) {
      this.destroy();
      return;
    }
    if (this.push(payload)) this.acknowledge();
  }

  /** A CREDIT frame from the forwarder: it has written that many of our bytes to its socket. */
  credit(bytes: number): void {
    this.sendCredit = Math.min(this.sendCredit + bytes, MUX_WINDOW);
    this.flush();
  }

  private acknowledge(): void {
    if (this.unacknowledged === 0 || this.destroyed || !this.link.writable) return;
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE(this.unacknowledged);
    this.unacknowledged = 0;
    this.link.write(frame(CREDIT, this.id, bytes));
  }

  private flush(): void {
    const pending = this.pending;
    if (!pending) return;
    while (pending.chunk.length > 0 && this.sendCredit > 0 && this.link.writable) {
      const size = Math.min(pending.chunk.length, this.sendCredit, MAX_FRAME);
      this.link.write(frame(DATA, this.id, pending.chunk.subarray(0, size)));
      pending.chunk = pending.chunk.subarray(size);
      this.sendCredit -= size;
    }
    if (pending.chunk.length > 0 && this.link.writable) return; // wait for credit
    this.pending = undefined;
    pending.done(pending.chunk.length > 0 ? new Error('proxy link closed') : null);
  }

  override _read(): void {
    this.acknowledge();
  }
  override _write(
    chunk: Buffer,
    _encoding: BufferEncoding,
    done: (error?: Error | null) => void,
  ): void {
    // Sent only as far as the forwarder's credit goes: the rest waits here, and the writer (the
    // upstream socket's pipe) waits for it, so a command that never reads holds one window.
    this.pending = { chunk, done };
    this.flush();
  }
  override _final(done: (error?: Error | null) => void): void {
    if (this.link.writable) this.link.write(frame(END, this.id));
    done();
  }
  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    const pending = this.pending;
    this.pending = undefined;
    pending?.done(error ?? new Error('connection closed'));
    if (this.forget(this.id) && this.link.writable) this.link.write(frame(CLOSE, this.id));
    done(error);
  }
}

/** Options of {@link serveMultiplexedLink}. */
export interface MultiplexedLinkOptions {
  /** Connections open at once; more are closed as they open. Default {@link MAX_CONNECTIONS_PER_COMMAND}. */
  maxConnections?: number;
}

/**
 * Serves the host end of the link: every connection the forwarder opens becomes a duplex stream
 * handed to `onConnection` (the proxy), at most `maxConnections` at once. Bad frames end the link.
 */
export function serveMultiplexedLink(
  link: Duplex,
  onConnection: (channel: Duplex) => void,
  options: MultiplexedLinkOptions = {},
): void {
  const maxConnections = options.maxConnections ?? MAX_CONNECTIONS_PER_COMMAND;
  // What the host may have queued towards the forwarder: every channel's window, plus control
  // frames. A peer that stops reading the link while it keeps sending (a command that took the
  // link from the forwarder could) gets the link closed instead of filling memory with answers.
  const maxBacklog = maxConnections * (MUX_WINDOW + SLACK) + 1024 * 1024;
  const send: Link = {
    get writable() {
      return link.writable;
    },
    write(data: Buffer) {
      if (!link.writable) return;
      link.write(data);
      if (link.writableLength > maxBacklog) link.destroy();
    },
  };
  const channels = new Map<number, Channel>();
  const forget = (id: number): boolean => channels.delete(id);
  let buffer: Buffer = Buffer.alloc(0);
  const onFrame = (type: number, id: number, payload: Buffer): void => {
    if (type === OPEN) {
      if (channels.has(id)) return;
      if (channels.size >= maxConnections) {
        send.write(frame(CLOSE, id));
        return;
      }
      const channel = new Channel(id, send, forget);
      channel.on('error', () => undefined);
      channels.set(id, channel);
      onConnection(channel);
      return;
    }
    const channel = channels.get(id);
    if (!channel) return;
    if (type === DATA) channel.receive(Buffer.from(payload));
    else if (type === CREDIT && payload.length === 4) channel.credit(payload.readUInt32BE(0));
    else if (type === END) channel.push(null);
    else if (type === CLOSE) {
      channels.delete(id);
      channel.destroy();
    }
  };
  link.on('data', (chunk: Buffer) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    while (buffer.length >= HEADER) {
      const length = buffer.readUInt32BE(5);
      if (length > MAX_FRAME + SLACK) {
        link.destroy();
        return;
      }
      if (buffer.length < HEADER + length) break;
      const type = buffer[0] as number;
      const id = buffer.readUInt32BE(1);
      const payload = buffer.subarray(HEADER, HEADER + length);
      buffer = buffer.subarray(HEADER + length);
      onFrame(type, id, payload);
    }
  });
  const closeAll = (): void => {
    for (const channel of [...channels.values()]) channel.destroy();
    channels.clear();
  };
  link.on('close', closeAll);
  link.on('error', closeAll);
}
