// Network by domain: a command with `network: { domains }` reaches only those hosts, through the
// filtering proxy Spine runs on the host. Real bubblewrap, real curl, real HTTPS servers on
// 127.0.0.1 standing in for an allowed and a refused host.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Duplex } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createBashTool,
  createBwrapSandbox,
  createToolRuntime,
  type SandboxBackend,
} from '../src/index.js';
import {
  type DomainProxyPolicy,
  handleProxyConnection,
  isAllowedHost,
  refusedAddressReason,
} from '../src/network-proxy.js';
import { makeTempDir, runOne } from './helpers.js';

let ws: { dir: string; cleanup: () => void };
let allowedServer: Server;
let refusedServer: Server;
let plainServer: HttpServer;
const hits = { allowed: 0, refused: 0, plain: 0 };
let ports: { allowed: number; refused: number; plain: number };
const decisions: { host: string; allowed: boolean; reason?: string }[] = [];
const backends: SandboxBackend[] = [];

// Stands in for DNS: the test hosts all live on 127.0.0.1.
const lookup = async (host: string): Promise<string[]> => {
  if (host === 'metadata.test') return ['169.254.169.254'];
  if (/\.test$/.test(host)) return ['127.0.0.1'];
  throw new Error('ENOTFOUND');
};
// Stands in for a public address: only 127.0.0.1 (the test servers) is "public" here.
const checkAddress = (address: string): string | undefined =>
  address === '127.0.0.1' ? undefined : refusedAddressReason(address);

function bash(network: 'off' | { domains: string[] }, policy?: Omit<DomainProxyPolicy, 'domains'>) {
  const backend = createBwrapSandbox({
    network: { lookup, onDecision: (decision) => decisions.push(decision), ...policy },
  });
  backends.push(backend);
  return (command: string, sandbox: 'workspace-write' | 'read-only' = 'workspace-write') =>
    runOne(
      createToolRuntime({
        cwd: ws.dir,
        sandbox,
        approval: 'never-ask',
        tools: [createBashTool({ cwd: ws.dir, sandboxBackend: backend, network })],
      }),
      'bash',
      { command, timeoutMs: 60_000 },
    );
}

beforeAll(async () => {
  ws = makeTempDir('spine-network-');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=allowed.test',
    '-addext', 'subjectAltName=DNS:allowed.test,DNS:refused.test,DNS:sub.allowed.test',
    '-keyout', `${ws.dir}/key.pem`, '-out', `${ws.dir}/cert.pem`,
  ], { stdio: 'ignore' }); // biome-ignore format: argv
  const tls = { key: readFileSync(`${ws.dir}/key.pem`), cert: readFileSync(`${ws.dir}/cert.pem`) };
  allowedServer = createServer(tls, (request, response) => {
    hits.allowed++;
    response.end(`allowed host answered ${request.headers.host}\n`);
  });
  refusedServer = createServer(tls, (_request, response) => {
    hits.refused++;
    response.end('refused host answered\n');
  });
  plainServer = createHttpServer((request, response) => {
    hits.plain++;
    if (request.url === '/big') response.end(Buffer.alloc(8 * 1024 * 1024, 'x'));
    else response.end(`plain http ${request.method} ${request.url}\n`);
  });
  for (const server of [allowedServer, refusedServer, plainServer])
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  ports = {
    allowed: (allowedServer.address() as AddressInfo).port,
    refused: (refusedServer.address() as AddressInfo).port,
    plain: (plainServer.address() as AddressInfo).port,
  };
});

afterAll(async () => {
  for (const backend of backends) backend.close?.();
  for (const server of [allowedServer, refusedServer, plainServer])
    await new Promise((done) => server.close(done));
  ws.cleanup();
});

const curl = (url: string, extra = ''): string =>
  `curl -sS -m 20 --cacert cert.pem ${extra} ${url}; echo "curl exit $?"`;

describe('network by domain through the filtering proxy', () => {
  it('reaches an allowed host over HTTPS and refuses a host that is not listed', async () => {
    const run = bash({ domains: [`allowed.test:${ports.allowed}`] }, { checkAddress });
    const result = await run(
      `${curl(`https://allowed.test:${ports.allowed}/`)}; ${curl(`https://refused.test:${ports.refused}/`)}`,
    );
    expect(result.content).toContain(
      `allowed host answered allowed.test:${ports.allowed}\ncurl exit 0`,
    );
    expect(result.content).toMatch(/CONNECT tunnel failed, response 403/);
    expect(hits.refused).toBe(0);
    expect(result.meta?.network).toBe('domains');
    expect(decisions).toContainEqual(
      expect.objectContaining({
        host: 'refused.test',
        allowed: false,
        reason: 'refused.test is not in the allowed domains',
      }),
    );
  });

  it('cannot go around the proxy: no route to the host, no DNS, no Unix sockets', async () => {
    const before = hits.allowed;
    const run = bash({ domains: [`allowed.test:${ports.allowed}`] }, { checkAddress });
    const result = await run(
      `${curl(`https://allowed.test:${ports.allowed}/`, "--noproxy '*'")}; ${curl(`https://127.0.0.1:${ports.allowed}/`, "--noproxy '*' -k")}; ` +
        `/usr/bin/python3 -c "import socket; socket.socket(socket.AF_UNIX)" 2>&1 | tail -1`,
    );
    expect(result.content).toMatch(/Could not resolve host: allowed.test/);
    expect(result.content).toMatch(/Failed to connect|Couldn't connect/);
    expect(result.content).toMatch(/PermissionError: \[Errno 1\] Operation not permitted/);
    expect(hits.allowed).toBe(before);
  });

  it('refuses a listed name that resolves to loopback, private or metadata addresses (default address check)', async () => {
    const before = hits.allowed;
    const run = bash({ domains: [`allowed.test:${ports.allowed}`, 'metadata.test'] });
    const result = await run(
      `${curl(`https://allowed.test:${ports.allowed}/`)}; ${curl('http://metadata.test/latest/meta-data/')}`,
    );
    expect(result.content).toMatch(/CONNECT tunnel failed, response 403/);
    expect(result.content).toMatch(
      /Refused by the Spine sandbox proxy: metadata.test resolves to a refused address/,
    );
    expect(hits.allowed).toBe(before);
  });

  it('forwards plain HTTP to an allowed host, subdomains with *. entries, and works in read-only mode', async () => {
    const run = bash(
      { domains: [`*.allowed.test:${ports.allowed}`, `plain.test:${ports.plain}`] },
      { checkAddress },
    );
    const result = await run(
      `curl -sS -m 20 http://plain.test:${ports.plain}/path?q=1; curl -sS -m 60 http://plain.test:${ports.plain}/big | wc -c; ${curl(`https://sub.allowed.test:${ports.allowed}/`)}; ${curl(`https://allowed.test:${ports.allowed}/`)}`,
      'read-only',
    );
    expect(result.content).toContain('plain http GET /path?q=1\n');
    expect(result.content).toContain('8388608\n'); // 8 MiB through the multiplexed link, intact
    expect(result.content).toContain(`allowed host answered sub.allowed.test:${ports.allowed}`);
    expect(result.content).toMatch(/CONNECT tunnel failed, response 403/); // *.allowed.test is not allowed.test
  });

  it('keeps network off by default: no proxy variables, nothing reachable', async () => {
    const before = hits.allowed;
    const result = await bash('off')(
      `echo "[$HTTPS_PROXY]"; ${curl(`https://allowed.test:${ports.allowed}/`)}`,
    );
    expect(result.content).toMatch(/^\[\]\n/);
    expect(result.content).toMatch(/Could not resolve host/);
    expect(result.meta?.network).toBe('off');
    expect(hits.allowed).toBe(before);
  });
});

describe('the proxy policy', () => {
  it('answers a CONNECT to a port outside 1-65535 with 400 and never resolves it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.integer({ min: 65536, max: 99999 }), fc.constant(0)),
        async (port) => {
          let answer = '';
          let resolved = false;
          const client = new Duplex({
            read() {},
            write(chunk, _encoding, done) {
              answer += chunk.toString();
              done();
            },
          });
          handleProxyConnection(client, {
            domains: ['only.test'],
            lookup: async () => {
              resolved = true;
              return ['127.0.0.1'];
            },
          });
          client.push(`CONNECT only.test:${port} HTTP/1.1\r\nHost: only.test\r\n\r\n`);
          for (let i = 0; i < 20 && !answer; i++) await new Promise((done) => setImmediate(done));
          expect(answer).toMatch(/^HTTP\/1\.1 400 /);
          expect(resolved).toBe(false);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('matches domains exactly or by *. suffix, case-insensitively', () => {
    expect(isAllowedHost('Pkg.EXAMPLE.com', ['pkg.example.com'])).toBe(true);
    expect(isAllowedHost('pkg.example.com.', ['pkg.example.com'])).toBe(true);
    expect(isAllowedHost('evil-pkg.example.com', ['pkg.example.com'])).toBe(false);
    expect(isAllowedHost('a.b.example.com', ['*.example.com'])).toBe(true);
    expect(isAllowedHost('example.com', ['*.example.com'])).toBe(false);
    expect(isAllowedHost('badexample.com', ['*.example.com'])).toBe(false);
  });

  it('refuses loopback, private, link-local, metadata, mapped and reserved addresses; allows public ones', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '64:ff9b::a00:1', 'not-an-ip'])
      expect(refusedAddressReason(address), address).toBeDefined();
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])
      expect(refusedAddressReason(address), address).toBeUndefined();
  }); // biome-ignore format: table

  it('answers any malformed or unlisted request with a 4xx and never connects', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (text) => {
        let answer = '';
        let connected = false;
        const client = new Duplex({
          read() {},
          write(chunk, _encoding, done) {
            answer += chunk.toString();
            done();
          },
        });
        const policy: DomainProxyPolicy = {
          domains: ['only.test'],
          lookup: async () => {
            connected = true;
            return ['127.0.0.1'];
          },
        };
        handleProxyConnection(client, policy);
        client.push(`${text.replace(/only\.test/g, '')}\r\n\r\n`);
        for (let i = 0; i < 20 && !answer; i++) await new Promise((done) => setImmediate(done));
        expect(answer).toMatch(/^HTTP\/1\.1 4\d\d /);
        expect(connected).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});
