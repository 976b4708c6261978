import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempFolder } from './helpers.js';

// Hostile bytes on the stdio wire of a served runtime: lines that are not JSON, parameters of the
// wrong type, a megabyte argument. Each gets an answer (or is dropped) and the server keeps serving.

const fixture = fileURLToPath(new URL('servers/serve-workspace.ts', import.meta.url));

describe('the stdio server under hostile input', () => {
  it('survives garbage, answers wrong parameters with errors and keeps serving', async () => {
    const cwd = tempFolder('spine-mcp-wire-');
    writeFileSync(join(cwd, 'notes.txt'), 'alpha\n');
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, cwd], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    type Response = { id?: number; result?: unknown; error?: unknown };
    const responses = new Map<number, Response>();
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let end = buffer.indexOf('\n');
      while (end >= 0) {
        const message = JSON.parse(buffer.slice(0, end)) as Response;
        if (typeof message.id === 'number') responses.set(message.id, message);
        buffer = buffer.slice(end + 1);
        end = buffer.indexOf('\n');
      }
    });
    const send = (line: string): boolean => child.stdin.write(`${line}\n`);
    const request = (id: number, method: string, params: unknown): boolean =>
      send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    const answered = async (id: number) => {
      const deadline = Date.now() + 60_000;
      while (!responses.has(id)) {
        if (Date.now() > deadline) throw new Error(`no answer to ${id}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return responses.get(id);
    };
    try {
      send('this is not json');
      send('{"jsonrpc":"2.0","id":');
      send('\u001b[2J\u0000\u00ff');
      request(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      });
      expect((await answered(1))?.result).toHaveProperty('serverInfo');
      send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      request(2, 'tools/call', { name: 'read', arguments: 'not an object' });
      const wrong = (await answered(2))?.error as { code: number; message: string };
      expect(wrong.code).toBe(-32602);
      expect(wrong.message).toContain('Invalid tools/call request');
      request(3, 'tools/call', { name: 'read', arguments: { path: 'x'.repeat(1_000_000) } });
      const huge = (await answered(3))?.result as { isError: boolean; content: { text: string }[] };
      expect(huge.isError).toBe(true);
      expect(huge.content[0]?.text.length).toBeLessThan(40_000);
      request(4, 'tools/call', { name: 'read', arguments: { path: 'notes.txt' } });
      const read = (await answered(4))?.result as { isError: boolean; content: { text: string }[] };
      expect(read.isError).toBe(false);
      expect(read.content[0]?.text).toContain('alpha');
      // Over the SDK's 10 MiB buffer, which would close the connection (and exit 0, silently).
      request(5, 'tools/call', { name: 'read', arguments: { path: 'A'.repeat(12_000_000) } });
      request(6, 'ping', {});
      const tooLarge = (await answered(5))?.error as { code: number; message: string };
      expect(tooLarge.code).toBe(-32600);
      expect(tooLarge.message).toMatch(
        /^Request too large: \d+ bytes, over the 8388608-byte limit/,
      );
      expect((await answered(6))?.result).toEqual({});
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);
});
