import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderToolResult } from './render.js';

const options = { server: 's', tool: 't' };

describe('renderToolResult', () => {
  it('renders every content type in order, deterministically', () => {
    const result = {
      content: [
        { type: 'text', text: 'hello' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'audio', data: 'AAA=', mimeType: 'audio/wav' },
        {
          type: 'resource',
          resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'body' },
        },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAAAA==' } },
        { type: 'resource_link', uri: 'file:///c', name: 'c', mimeType: 'text/x' },
        { type: 'video', data: 'x' },
      ],
      structuredContent: { b: 1, a: [true] },
    };
    const output = renderToolResult(result, options);
    expect(output.content).toBe(
      [
        'hello',
        '[image (image/png), 3 bytes, not shown to the model]',
        '[audio (audio/wav), 2 bytes, not shown to the model]',
        '[resource file:///a.txt (text/plain), 4 characters]\nbody',
        '[resource file:///b.bin (unknown type), 4 bytes of binary data not shown]',
        '[resource link: c <file:///c> (text/x)]',
        '[content of type "video" not shown]',
        '[structured content]\n{"a":[true],"b":1}',
      ].join('\n\n'),
    );
    expect(output.meta).toMatchObject({
      contentTypes: [
        'text',
        'image',
        'audio',
        'resource',
        'resource',
        'resource_link',
        'video',
        'structured',
      ],
      sizes: [5, 3, 2, 4, 4, 0, 0, 18],
    });
    expect(renderToolResult(result, options)).toEqual(output);
  });

  it('does not repeat structured content a text block already carries', () => {
    const output = renderToolResult(
      { content: [{ type: 'text', text: '{"a": 1}' }], structuredContent: { a: 1 } },
      options,
    );
    expect(output.content).toBe('{"a": 1}');
    expect(output.meta?.structured).toBe(true);
  });

  it('does not repeat structured content whose values the text already shows', () => {
    const output = renderToolResult(
      {
        content: [{ type: 'text', text: 'file body 42' }],
        structuredContent: { content: 'file body', n: 42 },
      },
      options,
    );
    expect(output.content).toBe('file body 42');
    const partial = renderToolResult(
      {
        content: [{ type: 'text', text: 'file body' }],
        structuredContent: { content: 'file body', n: 42 },
      },
      options,
    );
    expect(partial.content).toBe(
      'file body\n\n[structured content]\n{"content":"file body","n":42}',
    );
  });

  it('makes isError an error result and says so when there is no content', () => {
    expect(renderToolResult({ content: [], isError: true }, options)).toMatchObject({
      isError: true,
      content: '(the tool reported an error without details)',
    });
  });

  it('never throws and stays within the cap on arbitrary input', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.record({
            content: fc.array(
              fc.oneof(
                fc.anything(),
                fc.record({
                  type: fc.constantFrom('text', 'image', 'audio', 'resource', 'resource_link'),
                  text: fc.anything(),
                  data: fc.anything(),
                  resource: fc.anything(),
                  uri: fc.anything(),
                }),
              ),
            ),
            structuredContent: fc.anything(),
            isError: fc.anything(),
          }),
        ),
        fc.integer({ min: 1, max: 200 }),
        (value, maxChars) => {
          const output = renderToolResult(value, { ...options, maxChars });
          expect(typeof output.content).toBe('string');
          expect(output.content.length).toBeLessThanOrEqual(maxChars + 80);
          expect(JSON.parse(JSON.stringify(output.meta))).toEqual(output.meta);
        },
      ),
      { numRuns: 500 },
    );
  });
});
