import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignToolNames, MAX_TOOL_NAME_LENGTH, plainToolName, toolKey } from './names.js';

const VALID = /^[A-Za-z0-9_-]{1,64}$/;
const text = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
  fc.constantFrom('a', 'a.b', 'a b', 'ä', ''),
);

describe('assignToolNames', () => {
  it('keeps short clean names as mcp__<server>__<tool>', () => {
    const names = assignToolNames([{ server: 'fs', tool: 'read_file' }]);
    expect(names.get(toolKey('fs', 'read_file'))).toBe('mcp__fs__read_file');
    expect(plainToolName('my server', 'read.file')).toBe('mcp__my_server__read_file');
  });

  it('gives colliding and overlong names a hash suffix', () => {
    const long = 'x'.repeat(100);
    const names = assignToolNames([
      { server: 'a', tool: 'b.c' },
      { server: 'a', tool: 'b c' },
      { server: 'a', tool: long },
    ]);
    expect(names.get(toolKey('a', 'b.c'))).toBe('mcp__a__b_c');
    expect(names.get(toolKey('a', 'b c'))).toMatch(/^mcp__a__b_c_[0-9a-f]{8}$/);
    expect(names.get(toolKey('a', long))).toHaveLength(MAX_TOOL_NAME_LENGTH);
  });

  it('never hands out a reserved name', () => {
    const names = assignToolNames([{ server: 'x', tool: 'y' }], ['mcp__x__y']);
    expect(names.get(toolKey('x', 'y'))).not.toBe('mcp__x__y');
  });

  it('names are valid, unique, capped and deterministic for any servers and tools', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ server: text, tool: text }), { maxLength: 40 }),
        fc.array(text, { maxLength: 5 }),
        (pairs, reserved) => {
          const names = assignToolNames(pairs, reserved);
          const values = [...names.values()];
          for (const name of values) expect(name).toMatch(VALID);
          expect(new Set(values).size).toBe(values.length);
          for (const name of values) expect(reserved).not.toContain(name);
          expect(names.size).toBe(
            new Set(pairs.map((pair) => toolKey(pair.server, pair.tool))).size,
          );
          expect([...assignToolNames(pairs, reserved).entries()]).toEqual([...names.entries()]);
        },
      ),
      { numRuns: 300 },
    );
  });
});
