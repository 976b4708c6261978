// The client's wire as a pipe delivers it: requests written back to back (a `session/new`
// right behind `initialize`, before its answer) and the input closed right after them, as
// `printf '…' | spine acp` does. Every request is answered, in a valid message, before the
// connection ends. Driven by the SDK's own client; every message validated against the schema.
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { type AcpMessage, serveAcp } from '../src/index.js';
import { type Fixture, fixture, validating } from './acp-harness.js';
import { MessageValidator } from './acp-schema.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

describe('requests pipelined and followed by the end of input', () => {
  it('answers initialize, then a session/new sent before that answer, then ends', async () => {
    fx = await fixture([{ text: 'unused' }]);
    const config = fx.config();
    const validator = new MessageValidator();
    const toAgent = validating(validator, 'client→agent');
    const toClient = validating(validator, 'agent→client');
    const server = await serveAcp(
      { readable: toAgent.readable, writable: toClient.writable },
      { version: '0.0.0-test', config: () => config, lsp: false, web: false },
    );
    // The client writes through this writer, so the test can close the wire under it.
    const writer = toAgent.writable.getWriter();
    const clientWritable = new WritableStream<AcpMessage>({
      write: (message) => writer.write(message),
    });
    const connection = acp
      .client({ name: 'test-client' })
      .onNotification('session/update', () => {})
      .connect({ readable: toClient.readable, writable: clientWritable } as unknown as acp.Stream);
    const initialized = connection.agent.request('initialize', { protocolVersion: 1 });
    const created = connection.agent.request('session/new', {
      cwd: fx.workspace,
      mcpServers: [],
    });
    const refused = connection.agent.request('session/new', {
      cwd: `${fx.workspace}/missing`,
      mcpServers: [],
    });
    // The input ends right behind the requests (the client's writer closes, like stdin's EOF).
    await new Promise((resolve) => setImmediate(resolve));
    await writer.close();
    await expect(initialized).resolves.toMatchObject({ protocolVersion: 1 });
    await expect(created).resolves.toMatchObject({ sessionId: expect.any(String) });
    await expect(refused).rejects.toMatchObject({ code: -32602 });
    await server.closed;
    const answers = validator.messages
      .filter((entry) => entry.direction === 'agent→client' && 'id' in entry.message)
      .map((entry) => entry.message.id);
    expect(answers).toHaveLength(3);
    expect(validator.problems).toEqual([]);
  }, 60_000);
});
