import { renderMemorySection } from '@spine/memory';
import type { ModelRequest } from '@spine/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contributionsHtml, memoryFiles, toolSourceMark } from './sources.js';

const memory = renderMemorySection([
  {
    file: { path: '/home/a/.spine/memory.md', scope: 'user' },
    text: '- prefers tabs <!-- s1 -->',
  },
  { file: { path: '/w/.spine/memory.md', scope: 'project' }, text: '- tests: npm test' },
] as unknown as Parameters<typeof renderMemorySection>[0]);

const request = (system: string, tools: string[], messages: ModelRequest['messages']) =>
  ({
    model: 'm',
    system,
    tools: tools.map((name) => ({ name, description: '', parameters: {} })),
    messages,
  }) as ModelRequest;

describe('contributions to a request are marked by source', () => {
  it('names each memory file in the system prompt, the tools of each MCP server and message sources', () => {
    const system = `You are Spine.\n\n${memory}\n\n# Environment\ncwd /w`;
    expect(memoryFiles(system)).toEqual([
      { path: '/home/a/.spine/memory.md', scope: 'user', chars: expect.any(Number) },
      { path: '/w/.spine/memory.md', scope: 'project', chars: expect.any(Number) },
    ]);
    // The project file's part ends where the next section of the prompt begins.
    expect(memoryFiles(system)[1]?.chars).toBe(
      '## /w/.spine/memory.md (project memory)\n\n- tests: npm test\n\n'.length,
    );
    const html = contributionsHtml(
      request(
        system,
        ['read', 'mcp__docs__search', 'mcp__docs__fetch', 'mcp__git__log'],
        [
          { role: 'user', content: 'hi', source: 'user' },
          { role: 'user', content: 'ctx', source: 'runtime-context' },
          { role: 'tool', toolCallId: 't1', toolName: 'mcp__docs__search', content: 'found' },
        ],
      ),
    );
    expect(html).toContain(
      'data-source="memory">user memory</span></td><td>system prompt: <code>/home/a/.spine/memory.md</code>',
    );
    expect(html).toContain(
      'data-source="mcp">MCP server docs</span></td><td>tools: mcp__docs__search, mcp__docs__fetch</td><td>2 tools',
    );
    expect(html).toContain('MCP server git');
    expect(html).toContain('data-source="runtime-context"');
    expect(html).toContain('MCP server docs (results)');
    expect(toolSourceMark('read')).toBe('');
    expect(toolSourceMark('mcp__docs__search')).toContain('MCP server docs');
    expect(contributionsHtml(request('plain', ['read'], []))).toBe('');
  });

  it('escapes hostile server names, paths and sources', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (name, source) => {
        const hostile = `<script>${name}`;
        const html = contributionsHtml(
          request(
            `# Memory from earlier sessions\n\n## ${hostile} (user memory)\n\nx`,
            [`mcp__${hostile}__t`],
            [{ role: 'user', content: '', source: `"><b ${source}` }],
          ),
        );
        expect(html).not.toContain('<script');
        expect(html).not.toContain('"><b');
      }),
      { numRuns: 200 },
    );
  });
});
