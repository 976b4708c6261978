import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  connectionOf,
  loadConfig,
  postgresStoreFor,
  storeUrlOf,
  withoutPassword,
} from '@spine/harness';
import { StoreUnavailableError } from '@spine/store-postgres';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { configForFlags } from '../cli-options.js';

const root = mkdtempSync(join(tmpdir(), 'spine-store-url-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the store URL', () => {
  it('moves a password to PGPASSWORD and keeps everything else', () => {
    const env: NodeJS.ProcessEnv = {};
    expect(withoutPassword('postgres://spine:s3cr%40t@db:5433/agents?schema=team', env)).toBe(
      'postgres://spine@db:5433/agents?schema=team',
    );
    expect(env.PGPASSWORD).toBe('s3cr@t');
    // A password already in the environment wins.
    expect(withoutPassword('postgresql://u:other@h/d', env)).toBe('postgresql://u@h/d');
    expect(env.PGPASSWORD).toBe('s3cr@t');
  });

  it('never keeps the password of any URL, whatever it contains', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (password) => {
        const env: NodeJS.ProcessEnv = {};
        const url = `postgres://user:${encodeURIComponent(password)}@host/db`;
        const cleaned = withoutPassword(url, env);
        expect(env.PGPASSWORD).toBe(password);
        expect(cleaned).toBe('postgres://user@host/db');
      }),
    );
  });

  it('refuses what is not a postgres URL with a usage error', () => {
    expect(() => withoutPassword('mysql://x@h/d', {})).toThrow(/must start with postgres:\/\//);
    expect(() => withoutPassword('not a url', {})).toThrow(/not a URL/);
  });

  it('takes the schema parameter out of the connection string', () => {
    expect(connectionOf('postgres://u@h/d?schema=team&sslmode=require')).toEqual({
      connectionString: 'postgres://u@h/d?sslmode=require',
      schema: 'team',
    });
  });

  it('takes the store bounds out of the URL as milliseconds, refusing what is not a positive integer', () => {
    const url =
      'postgres://u@h/d?connectTimeoutMs=2500&statementTimeoutMs=9000&writeAheadTimeoutMs=4000&reconnectMs=60000&sslmode=require';
    expect(connectionOf(url)).toEqual({
      connectionString: 'postgres://u@h/d?sslmode=require',
      connectTimeoutMs: 2500,
      statementTimeoutMs: 9000,
      writeAheadTimeoutMs: 4000,
      reconnectMs: 60000,
    });
    for (const bad of ['0', '-5', '1.5', '1e3', 'soon', '', '99999999999999999999'])
      expect(() => connectionOf(`postgres://u@h/d?reconnectMs=${encodeURIComponent(bad)}`)).toThrow(
        /reconnectMs must be a positive whole number of milliseconds/,
      );
  });

  it('applies a URL bound: a server that accepts and never answers fails within connectTimeoutMs', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    // The default bound (10 s) would outlast this test's 5 s timeout.
    const store = postgresStoreFor(`postgres://u@127.0.0.1:${port}/d?connectTimeoutMs=300`);
    try {
      await expect(store.list()).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await store.close().catch(() => {});
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 5_000);

  it('comes from --store before SPINE_STORE_URL, and --store keeps the password out of the config', () => {
    const cwd = join(root, 'flag');
    mkdirSync(cwd);
    const saved = process.env.PGPASSWORD;
    try {
      delete process.env.PGPASSWORD;
      const { loaded } = configForFlags({ cwd, store: 'postgres://a:pw-flag@h/d' });
      expect(loaded.config.store).toEqual({ url: 'postgres://a@h/d' });
      expect(JSON.stringify(loaded.config)).not.toContain('pw-flag');
      expect(process.env.PGPASSWORD).toBe('pw-flag');
      expect(storeUrlOf(loaded.config, { SPINE_STORE_URL: 'postgres://b@h/d' })).toBe(
        'postgres://a@h/d',
      );
      expect(storeUrlOf({}, { SPINE_STORE_URL: 'postgres://b@h/d' })).toBe('postgres://b@h/d');
      expect(storeUrlOf({}, {})).toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.PGPASSWORD;
      else process.env.PGPASSWORD = saved;
    }
  });

  it('is refused in a configuration file when it holds a password', () => {
    const cwd = join(root, 'file');
    mkdirSync(join(cwd, '.spine'), { recursive: true });
    writeFileSync(
      join(cwd, '.spine', 'config.json'),
      JSON.stringify({ store: { url: 'postgres://u:filepw@h/d' } }),
    );
    const env = { SPINE_CONFIG_HOME: join(root, 'home') };
    expect(() => loadConfig({ cwd, env })).toThrow(/store\.url.*without a password/);
  });
});
