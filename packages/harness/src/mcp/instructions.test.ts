import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serverInstructions } from './wiring.js';

function managerWith(text: string) {
  return {
    status: () => [{ name: 'docs', state: 'ready' }],
    instructions: () => text,
  } as unknown as Parameters<typeof serverInstructions>[0];
}

describe("a server's instructions in the model's context", () => {
  it('are cut at 2,000 units without ever leaving half a character', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1900, maxLength: 2100 }), (text) => {
        const context = serverInstructions(managerWith(`x${text}`))()['mcp-server-instructions'];
        expect(context).toBeDefined();
        expect(context).not.toMatch(/\p{Cs}/u);
        expect(context?.length).toBeLessThanOrEqual('MCP server docs:\n'.length + 2000);
      }),
      { numRuns: 60 },
    );
    // The cut falls right inside a pair: the pair goes whole.
    const text = `${'a'.repeat(1999)}😀tail`;
    const context = serverInstructions(managerWith(text))()['mcp-server-instructions'];
    expect(context).toBe(`MCP server docs:\n${'a'.repeat(1999)}`);
  });
});
