import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_PROMPT_CHARS, promptText, workspacePath } from './prompt-content.js';

const root = mkdtempSync(join(tmpdir(), 'spine-acp-prompt-'));
const workspace = join(root, 'ws');
mkdirSync(join(workspace, 'src'), { recursive: true });
symlinkSync(root, join(workspace, 'escape'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('prompt content', () => {
  it('joins text and embedded resources into one message, with workspace-relative names', () => {
    const text = promptText(workspace, [
      { type: 'text', text: 'Look at this' },
      {
        type: 'resource',
        resource: { uri: pathToFileURL(join(workspace, 'src/a.ts')).href, text: 'export {}' },
      },
      { type: 'resource_link', uri: pathToFileURL(join(workspace, 'README.md')).href, name: 'r' },
    ]);
    expect(text).toBe(
      'Look at this\n\n<attached path="src/a.ts">\nexport {}\n</attached>\n\n[attached: README.md]',
    );
  });

  it('refuses resources outside the workspace, also through a symlink', () => {
    for (const path of [
      '/etc/passwd',
      join(workspace, '..', 'x'),
      join(workspace, 'escape', 'y'),
    ]) {
      const uri = pathToFileURL(path).href;
      expect(workspacePath(workspace, uri)).toMatchObject({
        problem: expect.stringContaining('outside the workspace'),
      });
    }
  });

  it('refuses images, huge prompts and empty prompts with a reason', () => {
    expect(
      promptText(workspace, [{ type: 'image', data: 'AA==', mimeType: 'image/png' }]),
    ).toMatchObject({
      problem: expect.stringContaining('image content is not supported'),
    });
    expect(
      promptText(workspace, [{ type: 'text', text: 'x'.repeat(MAX_PROMPT_CHARS + 1) }]),
    ).toMatchObject({
      problem: expect.stringContaining('exceeds'),
    });
    expect(promptText(workspace, [{ type: 'text', text: '  ' }])).toMatchObject({
      problem: 'empty prompt: send some text',
    });
  });

  it('never accepts a file URI that resolves outside the workspace (generated paths)', () => {
    const segment = fc.constantFrom('..', '.', 'src', 'escape', 'a b', '%2e%2e', 'ws', '');
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 8 }), fc.boolean(), (segments, absolute) => {
        const base = absolute ? '/' : `${workspace}/`;
        let uri: string;
        try {
          uri = pathToFileURL(base + segments.join('/')).href;
        } catch {
          return;
        }
        const result = workspacePath(workspace, uri);
        if (typeof result === 'string') {
          expect(result.startsWith('..')).toBe(false);
          expect(result.startsWith('escape')).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });
});
