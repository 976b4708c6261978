import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SpineError } from '@spine/protocol';
import { withTmpDir } from '@spine/test-utils';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidProfileError } from './errors.js';
import { BUILTIN_PROFILES, mergeProfiles } from './profile.js';
import { loadProfileDir, parseProfileFile } from './profile-file.js';

const file = (front: string, body = 'You review diffs.') => `---\n${front}\n---\n${body}\n`;

function errorOf(text: string): InvalidProfileError {
  try {
    parseProfileFile(text, '/p/.spine/agents/x.md');
  } catch (error) {
    if (error instanceof InvalidProfileError) return error;
    throw error;
  }
  throw new Error('expected an InvalidProfileError');
}

describe('parseProfileFile', () => {
  it('reads a Claude Code agent file unchanged (tool names mapped, unknown keys ignored)', () => {
    const profile = parseProfileFile(
      file(
        'name: code-reviewer\ndescription: Reviews code for quality\ntools: Read, Grep, Glob, LS, TodoWrite\nmodel: inherit\ncolor: blue',
        'You are a senior reviewer.\n\nBe concise.',
      ),
      'a.md',
    );
    expect(profile).toEqual({
      name: 'code-reviewer',
      description: 'Reviews code for quality',
      tools: ['read', 'grep', 'glob', 'list', 'todowrite'],
      prompt: 'You are a senior reviewer.\n\nBe concise.',
      source: 'a.md',
    });
  });

  it('reads Spine keys: a tool list, model, sandbox and maxSteps', () => {
    const profile = parseProfileFile(
      file(
        'name: fixer\ndescription: Fixes one test\ntools: [read, edit, bash]\nmodel: deepseek-v4-pro\nsandbox: workspace-write\nmaxSteps: 12',
      ),
      'f.md',
    );
    expect(profile).toMatchObject({
      tools: ['read', 'edit', 'bash'],
      model: 'deepseek-v4-pro',
      sandbox: 'workspace-write',
      maxSteps: 12,
    });
  });

  it.each([
    ['no frontmatter', 'just text', 'frontmatter'],
    ['an unclosed block', '---\nname: a\ndescription: b\n', 'frontmatter'],
    ['bad YAML', file('name: [unclosed\ndescription: x'), 'frontmatter'],
    ['a list instead of keys', file('- a\n- b'), 'frontmatter'],
    ['a duplicate key', file('name: a\nname: b\ndescription: x'), 'frontmatter'],
    ['no name', file('description: x'), 'name'],
    ['a bad name', file('name: has space\ndescription: x'), 'name'],
    ['a numeric name', file('name: 12\ndescription: x'), 'name'],
    ['no description', file('name: a'), 'description'],
    ['tools as a number', file('name: a\ndescription: x\ntools: 3'), 'tools'],
    ['a bad tool name', file('name: a\ndescription: x\ntools: "read, rm -rf"'), 'tools'],
    ['an unknown sandbox', file('name: a\ndescription: x\nsandbox: root'), 'sandbox'],
    ['maxSteps zero', file('name: a\ndescription: x\nmaxSteps: 0'), 'maxSteps'],
    ['maxSteps as text', file('name: a\ndescription: x\nmaxSteps: many'), 'maxSteps'],
    ['an empty body', file('name: a\ndescription: x', '   '), 'body'],
  ])('refuses %s with an error naming the file and key', (_label, text, key) => {
    const error = errorOf(text);
    expect(error.key).toBe(key);
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.message).toContain('/p/.spine/agents/x.md');
    expect(error.message).toContain(`: ${key}:`);
    expect(SpineError.isInstance(error)).toBe(true);
  });

  it('prints no process warnings for odd YAML (a CLI user sees only the profile error)', async () => {
    const warnings: string[] = [];
    const collect = (warning: Error): void => {
      warnings.push(warning.message);
    };
    process.on('warning', collect);
    try {
      parseProfileFile(file('name: a\ndescription: !odd d'), 'w.md');
      errorOf('%N\n---\nname: a\ndescription: d\n---\nbody');
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', collect);
    }
    expect(warnings).toEqual([]);
  });

  it("gives the YAML parser's first line without its dangling colon", () => {
    const error = errorOf(file('name: y\ndescription: [unclosed'));
    expect(error.message).toMatch(/invalid YAML: [^\n]*at line \d+, column \d+ \(counting from/);
    expect(error.message).not.toMatch(/:;|:\s*\(/);
  });

  it('gives a profile or a typed error for any input, never another exception', () => {
    const yamlish = fc.oneof(
      fc.string(),
      fc.constantFrom(
        'name: a',
        'description: d',
        'tools: Read, Bash',
        'sandbox: read-only',
        'maxSteps: 3',
        '&a [*a]',
        '!!binary x',
        '? x',
        '{',
        ': :',
      ),
    );
    fc.assert(
      fc.property(
        fc.array(yamlish, { maxLength: 8 }),
        fc.string(),
        fc.boolean(),
        (lines, body, fence) => {
          const text = fence
            ? `---\n${lines.join('\n')}\n---\n${body}`
            : `${lines.join('\n')}\n${body}`;
          try {
            const profile = parseProfileFile(text, 'fuzz.md');
            expect(profile.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
            expect(profile.prompt.trim()).not.toBe('');
          } catch (error) {
            expect(error).toBeInstanceOf(InvalidProfileError);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('loadProfileDir', () => {
  it('loads a directory in name order; a missing one is empty; project files override built-ins', async () => {
    await withTmpDir(async (dir) => {
      expect(await loadProfileDir(join(dir, 'missing'))).toEqual([]);
      const agents = join(dir, '.spine/agents');
      mkdirSync(agents, { recursive: true });
      writeFileSync(join(agents, 'b.md'), file('name: reviewer\ndescription: Reviews'));
      writeFileSync(
        join(agents, 'a.md'),
        file('name: explore\ndescription: My explore\nsandbox: read-only'),
      );
      writeFileSync(join(agents, 'notes.txt'), 'ignored');
      const loaded = await loadProfileDir(agents);
      expect(loaded.map((p) => p.name)).toEqual(['explore', 'reviewer']);
      const merged = mergeProfiles(BUILTIN_PROFILES, loaded);
      expect(merged.map((p) => p.name)).toEqual(['explore', 'general', 'reviewer']);
      expect(merged.find((p) => p.name === 'explore')?.description).toBe('My explore');
    });
  });

  it('names the file when two files declare the same profile', async () => {
    await withTmpDir(async (dir) => {
      writeFileSync(join(dir, 'a.md'), file('name: same\ndescription: one'));
      writeFileSync(join(dir, 'b.md'), file('name: same\ndescription: two'));
      await expect(loadProfileDir(dir)).rejects.toThrow(
        /b\.md: name: "same" is also declared by .*a\.md/,
      );
      // With onInvalid, the bad files are reported and the rest load.
      writeFileSync(join(dir, 'c.md'), file('name: other'));
      const skipped: string[] = [];
      const loaded = await loadProfileDir(dir, {
        onInvalid: (error) => skipped.push(`${error.path}:${error.key}`),
      });
      expect(loaded.map((p) => p.name)).toEqual(['same']);
      expect(skipped).toEqual([`${join(dir, 'b.md')}:name`, `${join(dir, 'c.md')}:description`]);
    });
  });
});
