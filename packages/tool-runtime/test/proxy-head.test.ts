// The domain proxy's request head, as a sandboxed command can send it: strictly parsed (anything
// malformed is a 400 that never resolves a name), bounded in size (431) and time (408), ports 80
// and 443 unless an entry names its port, and every refusal closing the connection both ways.
import { Duplex } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_HEAD_BYTES, matchesDomains, parseProxyHead } from '../src/internal/proxy-head.js';
import { type DomainProxyPolicy, handleProxyConnection } from '../src/network-proxy.js';

/** A client connection the test writes into, recording what the proxy answers. */
function fakeClient(): { client: Duplex; answer: () => string } {
  let answer = '';
  const client = new Duplex({
    read() {},
    write(chunk, _encoding, done) {
      answer += chunk.toString('latin1');
      done();
    },
  });
  return { client, answer: () => answer };
}

async function settle(done: () => boolean, turns = 50): Promise<void> {
  for (let i = 0; i < turns && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Sends `head` to a proxy allowing `domains`; resolves with the answer and whether it resolved a name. */
async function ask(
  head: string,
  domains: string[],
  extra: Partial<DomainProxyPolicy> = {},
): Promise<{ answer: string; resolved: boolean; destroyed: boolean }> {
  const { client, answer } = fakeClient();
  let resolved = false;
  handleProxyConnection(client, {
    domains,
    // 192.0.2.1 is refused by the default address check: nothing is ever connected to.
    lookup: async () => {
      resolved = true;
      return ['192.0.2.1'];
    },
    ...extra,
  });
  client.push(Buffer.from(head, 'latin1'));
  await settle(() => client.destroyed);
  return { answer: answer(), resolved, destroyed: client.destroyed };
}

const VALID = 'CONNECT only.test:443 HTTP/1.1\r\nHost: only.test:443\r\nUser-Agent: t\r\n\r\n';

// Ways to break a valid head; each must make it malformed.
const breakers: fc.Arbitrary<(head: string) => string> = fc.oneof(
  fc
    .integer({ min: 0, max: 31 })
    .filter((code) => code !== 9)
    .map(
      (code) => (head: string) =>
        head.replace('User-Agent: t', `User-Agent: t${String.fromCharCode(code)}x`),
    ),
  fc.constant((head: string) => head.replace('\r\nUser-Agent', '\nUser-Agent')),
  fc.constant((head: string) => head.replace('\r\nUser-Agent: t', '\r\nUser-Agent: t\r\n folded')),
  fc.constant((head: string) =>
    head.replace('User-Agent: t', 'Content-Length: 1\r\nContent-Length: 2'),
  ),
  fc.constant((head: string) =>
    head.replace('User-Agent: t', 'Content-Length: 1\r\nTransfer-Encoding: chunked'),
  ),
  fc.constant((head: string) => head.replace('User-Agent: t', 'Bad Name: t')),
  fc.constant((head: string) => head.replace('User-Agent: t', ': empty name')),
  fc.constant((head: string) => head.replace('Host: only.test:443', 'Host: a\r\nHost: b')),
  fc.constant((head: string) => head.replace('HTTP/1.1', 'HTTP/2.0')),
  fc.constant((head: string) => head.replace('CONNECT ', 'CONNECT  ')),
  fc.constant((head: string) => head.replace('only.test:443 ', 'only.test ')),
  fc.constant((head: string) => head.replace('only.test:443 ', 'only.test:0 ')),
  fc.constant((head: string) => head.replace('only.test:443 ', 'only.test:65536 ')),
  fc.constant((head: string) => head.replace('only.test:443 ', 'only_test!:443 ')),
  fc.constant((head: string) => head.replace('only.test:443 ', '[only.test]:443 ')),
  fc.constant((head: string) => head.replace('CONNECT only.test:443', 'GET https://only.test/')),
  fc.constant((head: string) => head.replace('CONNECT only.test:443', 'GET /relative')),
  fc.constant((head: string) => head.replace('CONNECT only.test:443', 'GET http://u:p@only.test/')),
  fc.constant((head: string) =>
    head.replace('CONNECT only.test:443', 'GET http://only.test:99999/'),
  ),
);

describe('the proxy head parser', () => {
  it('parses valid CONNECT and absolute-URI heads', () => {
    expect(parseProxyHead(VALID)).toMatchObject({
      method: 'CONNECT',
      host: 'only.test',
      port: 443,
    });
    expect(parseProxyHead('CONNECT [2001:db8::1]:8443 HTTP/1.1\r\n\r\n')).toMatchObject({
      host: '2001:db8::1',
      port: 8443,
    });
    expect(
      parseProxyHead('GET http://only.test:8080/a?b=1 HTTP/1.0\r\nHost: only.test\r\n\r\n'),
    ).toMatchObject({ method: 'GET', host: 'only.test', port: 8080, path: '/a?b=1' });
  });

  it('refuses every broken variant of a valid head with a 400 and never resolves the host', async () => {
    await fc.assert(
      fc.asyncProperty(breakers, async (breakHead) => {
        const head = breakHead(VALID);
        expect(parseProxyHead(head), JSON.stringify(head)).toBeUndefined();
        const { answer, resolved, destroyed } = await ask(head, ['only.test']);
        expect(answer).toMatch(/^HTTP\/1\.1 400 /);
        expect(resolved).toBe(false);
        expect(destroyed).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('answers arbitrary bytes with a 4xx, closes both ways, and never resolves', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 400 }), async (bytes) => {
        const head = `${Buffer.from(bytes)
          .toString('latin1')
          .replace(/only\.test/g, '')}\r\n\r\n`;
        const { answer, resolved, destroyed } = await ask(head, ['only.test']);
        expect(answer).toMatch(/^HTTP\/1\.1 4\d\d /);
        expect(resolved).toBe(false);
        expect(destroyed).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('the proxy head bounds', () => {
  it('answers a head over 16 KiB with 431 and closes, whatever it is cut into', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4096 }), async (piece) => {
        const { client, answer } = fakeClient();
        handleProxyConnection(client, { domains: ['only.test'] });
        const big = `CONNECT only.test:443 HTTP/1.1\r\nX: ${'a'.repeat(MAX_HEAD_BYTES)}`;
        for (let at = 0; at < big.length && !client.destroyed; at += piece)
          client.push(big.slice(at, at + piece));
        await settle(() => client.destroyed);
        expect(answer()).toMatch(/^HTTP\/1\.1 431 /);
        expect(client.destroyed).toBe(true);
      }),
      { numRuns: 30 },
    );
  });

  it('answers a head that never completes with 408 and closes', async () => {
    const { client, answer } = fakeClient();
    handleProxyConnection(client, { domains: ['only.test'], headTimeoutMs: 20 });
    client.push('CONNECT only.test:443 HTTP/1.1\r\nHost: on');
    await new Promise((resolve) => client.once('close', resolve));
    expect(answer()).toMatch(/^HTTP\/1\.1 408 /);
  }, 5000);
});

describe('ports of an allowed host', () => {
  it('allows 80 and 443 by default, and exactly the listed port of a host:port entry', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 65535 }), async (port) => {
        const byDefault = await ask(`CONNECT only.test:${port} HTTP/1.1\r\n\r\n`, ['only.test']);
        const listed = await ask(`CONNECT only.test:${port} HTTP/1.1\r\n\r\n`, ['only.test:8443']);
        expect(byDefault.resolved).toBe(port === 80 || port === 443);
        expect(listed.resolved).toBe(port === 8443);
        if (!byDefault.resolved) expect(byDefault.answer).toMatch(/^HTTP\/1\.1 403 .*port/s);
        expect(matchesDomains('only.test', ['[::1]:8443', 'only.test:8443'], port)).toBe(
          port === 8443,
        );
      }),
      { numRuns: 100 },
    );
    for (const port of [80, 443, 8443])
      expect(
        (await ask(`CONNECT only.test:${port} HTTP/1.1\r\n\r\n`, ['only.test'])).resolved,
      ).toBe(port !== 8443);
  });
});
