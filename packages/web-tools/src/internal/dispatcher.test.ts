import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectAttempt, createPinnedDispatcher } from './dispatcher.js';

const settings = { connectTimeoutMs: 2_000, headersTimeoutMs: 2_000, bodyTimeoutMs: 2_000 };
const servers: ReturnType<typeof createServer>[] = [];
let port4 = 0;
let port6 = 0;

async function listen(host: string): Promise<number> {
  const server = createServer((incoming, response) =>
    response.end(`hello from ${incoming.socket.localAddress}`),
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  port4 = await listen('127.0.0.1');
  port6 = await listen('::1');
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('createPinnedDispatcher', () => {
  it('connects the pinned name to the validated address without asking DNS', async () => {
    const attempts: ConnectAttempt[] = [];
    const dispatcher = createPinnedDispatcher(
      { hostname: 'pinned.test', address: '127.0.0.1', family: 4, port: port4 },
      { ...settings, onConnect: (attempt) => attempts.push(attempt) },
    );
    try {
      const response = await request(`http://pinned.test:${port4}/`, { dispatcher });
      expect(await response.body.text()).toBe('hello from 127.0.0.1');
      expect(attempts).toEqual([
        { hostname: 'pinned.test', address: '127.0.0.1', port: port4, viaProxy: false },
      ]);
    } finally {
      await dispatcher.destroy();
    }
  });

  it('refuses to resolve any other name through the pinned lookup', async () => {
    const dispatcher = createPinnedDispatcher(
      { hostname: 'pinned.test', address: '127.0.0.1', family: 4, port: port4 },
      settings,
    );
    try {
      await expect(request(`http://elsewhere.test:${port4}/`, { dispatcher })).rejects.toThrow(
        /pinned connection for pinned.test was asked to resolve elsewhere.test/,
      );
    } finally {
      await dispatcher.destroy();
    }
  });

  it('pins IPv6 addresses too, and connects to bracketed IPv6 literals directly', async () => {
    const byName = createPinnedDispatcher(
      { hostname: 'six.test', address: '::1', family: 6, port: port6 },
      settings,
    );
    const byLiteral = createPinnedDispatcher(
      { hostname: '::1', address: '::1', family: 6, port: port6 },
      settings,
    );
    try {
      expect(
        await (await request(`http://six.test:${port6}/`, { dispatcher: byName })).body.text(),
      ).toBe('hello from ::1');
      expect(
        await (await request(`http://[::1]:${port6}/`, { dispatcher: byLiteral })).body.text(),
      ).toBe('hello from ::1');
    } finally {
      await byName.destroy();
      await byLiteral.destroy();
    }
  });

  it('lets the connect hook veto a connection before a socket exists', async () => {
    let accepted = 0;
    servers[0]!.once('connection', () => {
      accepted += 1;
    });
    const dispatcher = createPinnedDispatcher(
      { hostname: 'pinned.test', address: '127.0.0.1', family: 4, port: port4 },
      {
        ...settings,
        onConnect: () => {
          throw new Error('vetoed');
        },
      },
    );
    try {
      await expect(request(`http://pinned.test:${port4}/`, { dispatcher })).rejects.toThrow(
        'vetoed',
      );
      expect(accepted).toBe(0);
    } finally {
      await dispatcher.destroy();
    }
  });
});
