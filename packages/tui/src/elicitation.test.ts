import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeElicitation, parseElicitationAnswer } from './elicitation.js';

const request = {
  server: 'forms',
  signal: new AbortController().signal,
  params: {
    message: 'Who are you?\u001b[2J',
    requestedSchema: {
      type: 'object' as const,
      properties: {
        name: { type: 'string' as const, description: 'Your name' },
        age: { type: 'integer' as const },
        admin: { type: 'boolean' as const },
        tags: { type: 'array' as const, items: { type: 'string' as const, enum: ['a', 'b'] } },
      },
      required: ['name'],
    },
  },
};

describe('elicitation in the REPL', () => {
  it('describes the question and its fields, with terminal escapes made visible', () => {
    const text = describeElicitation(request);
    expect(text).toContain('MCP server forms asks: Who are you?\\x1b[2J');
    expect(text).toContain('  name (string, required): Your name');
    expect(text).toContain('  age (integer)');
    expect(text).toContain('  tags (array, one of a, b)');
    expect(text).not.toContain('\u001b');
  });

  it('turns the answer line into accept with typed content, decline or cancel', () => {
    expect(
      parseElicitationAnswer('name="Ada Lovelace" age=36 admin=yes tags=a,b', request),
    ).toEqual({
      action: 'accept',
      content: { name: 'Ada Lovelace', age: 36, admin: true, tags: ['a', 'b'] },
    });
    expect(parseElicitationAnswer('decline', request)).toEqual({ action: 'decline' });
    expect(parseElicitationAnswer(' cancel ', request)).toEqual({ action: 'cancel' });
    expect(parseElicitationAnswer('', request)).toEqual({ action: 'cancel' });
  });

  it('never throws on any answer line', () => {
    fc.assert(
      fc.property(fc.string(), (line) => {
        const result = parseElicitationAnswer(line, request);
        expect(['accept', 'decline', 'cancel']).toContain(result.action);
      }),
    );
  });
});
