import { readFileSync } from 'node:fs';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BoundedReadBuffer, installBoundedReader, PINNED_SDK_VERSION } from './bounded-reader.js';

const message = fc.record({
  jsonrpc: fc.constant('2.0' as const),
  id: fc.nat(),
  result: fc.record({
    content: fc.array(
      fc.record({ type: fc.constant('text'), text: fc.string({ unit: 'binary' }) }),
      { maxLength: 3 },
    ),
  }),
});

function drain(buffer: { readMessage(): unknown }): unknown[] {
  const out: unknown[] = [];
  for (let next = buffer.readMessage(); next !== null; next = buffer.readMessage()) out.push(next);
  return out;
}

describe('the bounded stdio reader', () => {
  it('reads the same messages as the SDK ReadBuffer under the limit, whatever the chunking', () => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 5 }),
        fc.array(fc.nat(500), { maxLength: 6 }),
        (messages, cuts) => {
          const bytes = Buffer.from(messages.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
          const ours = new BoundedReadBuffer();
          const theirs = new ReadBuffer();
          const got: unknown[] = [];
          const want: unknown[] = [];
          let from = 0;
          for (const cut of [...cuts, bytes.length]
            .map((at) => Math.min(at, bytes.length))
            .sort((a, b) => a - b)) {
            ours.append(bytes.subarray(from, cut));
            theirs.append(bytes.subarray(from, cut));
            got.push(...drain(ours));
            want.push(...drain(theirs));
            from = cut;
          }
          expect(got).toEqual(want);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('cuts an oversized response to its id with the start of its text, never a lone surrogate', () => {
    const reader = new BoundedReadBuffer(1_000);
    const text = `a${'😀'.repeat(2_000)}`;
    reader.append(
      Buffer.from(
        `${JSON.stringify({ result: { content: [{ type: 'text', text }] }, jsonrpc: '2.0', id: 7 })}\n`,
      ),
    );
    const [cut] = drain(reader) as { id: number; result: { content: { text: string }[] } }[];
    expect(cut?.id).toBe(7);
    const shown = cut?.result.content[0]?.text ?? '';
    expect(shown.startsWith('a😀😀')).toBe(true);
    expect(shown).toContain('cut by Spine');
    expect(shown).not.toMatch(/\p{Cs}/u);
  });

  it('drops an oversized notification with an error and reads the next message', () => {
    const reader = new BoundedReadBuffer(100);
    reader.append(
      Buffer.from(
        `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${'x'.repeat(500)}"}}\n{"jsonrpc":"2.0","id":1,"result":{}}\n`,
      ),
    );
    expect(() => reader.readMessage()).toThrow(/dropped/);
    expect(reader.readMessage()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  it('fails an oversized error response at once, and drops an oversized server request', () => {
    const reader = new BoundedReadBuffer(100);
    const big = 'x'.repeat(500);
    reader.append(
      Buffer.from(
        `{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"${big}"}}\n{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{"x":"${big}"}}\n`,
      ),
    );
    expect(reader.readMessage()).toMatchObject({ id: 4, error: { code: -32603 } });
    expect(() => reader.readMessage()).toThrow(/dropped/);
  });

  it('is written for the SDK version the package pins', () => {
    const manifest = JSON.parse(
      readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { dependencies: Record<string, string> };
    expect(manifest.dependencies['@modelcontextprotocol/sdk']).toBe(PINNED_SDK_VERSION);
  });

  it('replaces the read buffer of the pinned SDK transport, and refuses a transport of another shape', () => {
    const transport = new StdioClientTransport({ command: 'true' });
    installBoundedReader(transport);
    expect((transport as unknown as { _readBuffer: unknown })._readBuffer).toBeInstanceOf(
      BoundedReadBuffer,
    );
    expect(() => installBoundedReader({})).toThrow(/pin @modelcontextprotocol\/sdk to 1\.32\.2/);
  });
});
