import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The host name the test seam maps to 127.0.0.1. */
export const FIXTURE_HOST = 'fixture.test';

let certificate: { key: string; cert: string } | undefined;

/** A throwaway self-signed certificate for fixture.test, made with openssl at test time. */
export function testCertificate(): { key: string; cert: string } {
  if (certificate) return certificate;
  const dir = mkdtempSync(join(tmpdir(), 'spine-web-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '2',
        '-subj',
        `/CN=${FIXTURE_HOST}`,
        '-addext',
        `subjectAltName=DNS:${FIXTURE_HOST},DNS:other.test`,
      ],
      { stdio: 'ignore' },
    );
    certificate = {
      key: readFileSync(join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    };
    return certificate;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A request as a loopback server saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A running loopback server. */
export interface TestServer {
  port: number;
  /** `https://fixture.test:<port><path>` for HTTPS servers, `http://127.0.0.1:<port><path>` otherwise. */
  url(path: string): string;
  /** Every request received so far. */
  requests: SeenRequest[];
  /** Sockets accepted so far. */
  connections(): number;
  /** Sockets currently open. */
  openSockets(): number;
  close(): Promise<void>;
}

type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;

function track(
  server: ReturnType<typeof createHttpServer>,
  scheme: 'http' | 'https',
  requests: SeenRequest[],
): Promise<TestServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  server.on(scheme === 'https' ? 'secureConnection' : 'connection', (socket: Socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      const host = scheme === 'https' ? FIXTURE_HOST : '127.0.0.1';
      resolve({
        port,
        url: (path) => `${scheme}://${host}:${port}${path}`,
        requests,
        connections: () => accepted,
        openSockets: () => sockets.size,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

function withBody(requests: SeenRequest[], handler: Handler) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body,
      });
      handler(request, response, body);
    });
  };
}

/** Starts an HTTPS server on 127.0.0.1 with the fixture.test certificate. */
export function startHttpsServer(handler: Handler): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = createHttpsServer(testCertificate(), withBody(requests, handler));
  return track(server as unknown as ReturnType<typeof createHttpServer>, 'https', requests);
}

/** Starts a plain HTTP server on 127.0.0.1 (search API wire formats). */
export function startHttpServer(handler: Handler): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  return track(createHttpServer(withBody(requests, handler)), 'http', requests);
}

/** A CONNECT proxy on 127.0.0.1 that tunnels every target to 127.0.0.1:<targetPort>. */
export async function startConnectProxy(targetPort: number): Promise<{
  url: string;
  targets: string[];
  close(): Promise<void>;
}> {
  const targets: string[] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer((_request, response) => response.writeHead(405).end());
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    targets.push(request.url ?? '');
    sockets.add(client);
    const upstream = connect(targetPort, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    targets,
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}
