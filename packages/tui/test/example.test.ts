import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const example = 'packages/tui/examples/tui-alone.ts';

describe("the README's example", () => {
  it('prints the transcript (escape sequences made visible) and the answered approval', () => {
    const run = spawnSync('npx', ['tsx', example], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe('session demo');
    expect(lines[1]).toMatch(/^created \d{4}-\d{2}-\d{2}T[\d:.]+Z {2}model - {2}cwd \/work$/);
    expect(lines.slice(2)).toEqual([
      '',
      '── turn 1 ──',
      'you › Run the tests',
      '  → bash command=npm test',
      '  ✓ bash 3 passed \\x1b[2J[exit code 0]',
      '',
      'tokens: input 1200, cache hit 1024, output 18; cost -',
      '? allow bash command=rm -rf dist',
      '  reason: bash asks before it runs',
      '  [o]nce  [a]lways for this session  [d]eny › ',
      'answer: always',
      '',
    ]);
  }, 120_000);

  it('is the code the README shows', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const code = readFileSync(new URL(`../../../${example}`, import.meta.url), 'utf8');
    // The README block is the example without its two header comment lines.
    const body = code.split('\n').slice(2).join('\n');
    expect(readme).toContain(body.trim());
  });
});

describe("the README's Markdown example", () => {
  const markdownExample = 'packages/tui/examples/markdown.ts';

  it('prints the answer rendered as plain text off a terminal', () => {
    const run = spawnSync('npx', ['tsx', markdownExample], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout.split('\n')).toEqual([
      '## Plan',
      '',
      'Run the tests, then fix `parse()` — see the guide (https://example.com/guide).',
      '',
      '- [x] read the code',
      '- [ ] write the fix',
      '',
      'file     │ 状態',
      '─────────┼─────',
      'parse.ts │ 👍',
      '',
      '  ts',
      '    export const ok = true;',
      '',
    ]);
  }, 120_000);

  it('is the code the README shows', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const code = readFileSync(new URL(`../../../${markdownExample}`, import.meta.url), 'utf8');
    expect(readme).toContain(code.split('\n').slice(2).join('\n').trim());
  });
});
