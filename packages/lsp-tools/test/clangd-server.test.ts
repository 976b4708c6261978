// clangd (Debian's `clangd` package; .ci/run installs it) on a small C project with a
// compile_commands.json: definitions and references across files, checked by hand-counted
// ground truth. Fails loudly when clangd is missing.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createClangdServer,
  createLspManager,
  type LspLocation,
  type LspManager,
} from '../src/index.js';

let root: string;
let lsp: LspManager;
const at = (location: LspLocation): string =>
  `${relative(root, location.path)}:${location.line}:${location.column}`;

const FILES: Record<string, string> = {
  'include/counter.h': [
    '#ifndef COUNTER_H',
    '#define COUNTER_H',
    'struct counter { int value; };',
    'void counter_add(struct counter *c, int amount);',
    'int counter_get(const struct counter *c);',
    '#endif',
  ].join('\n'),
  'src/counter.c': [
    '#include "counter.h"',
    'void counter_add(struct counter *c, int amount) { c->value += amount; }',
    'int counter_get(const struct counter *c) { return c->value; }',
  ].join('\n'),
  'src/main.c': [
    '#include <stdio.h>',
    '#include "counter.h"',
    'int main(void) {',
    '  struct counter c = { 0 };',
    '  counter_add(&c, 2);',
    '  counter_add(&c, 3);',
    '  printf("%d\\n", counter_get(&c));',
    '  return 0;',
    '}',
  ].join('\n'),
  'src/twice.c': [
    '#include "counter.h"',
    'void twice(struct counter *c) { counter_add(c, counter_get(c)); }',
  ].join('\n'),
};

beforeAll(() => {
  // Fail loudly, never skip: CI installs clangd in .ci/run.
  execFileSync('clangd', ['--version']);
  root = mkdtempSync(join(tmpdir(), 'spine-lsp-clangd-'));
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), `${text}\n`);
  }
  const commands = ['src/counter.c', 'src/main.c', 'src/twice.c'].map((file) => ({
    directory: root,
    file: join(root, file),
    arguments: ['cc', '-Iinclude', '-c', file],
  }));
  writeFileSync(join(root, 'compile_commands.json'), JSON.stringify(commands));
  lsp = createLspManager({ cwd: root, servers: [createClangdServer()] });
});

afterAll(async () => {
  await lsp?.shutdown();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('clangd on a small C project', () => {
  it('goes from a call to the function definition in another file', async () => {
    const found = (await lsp.definition('src/main.c', { line: 5, column: 3 })).map(at);
    expect(found).toEqual(['src/counter.c:2:6']);
  });

  it('finds every reference to a function across the files of the project', async () => {
    const expected = [
      'include/counter.h:4:6',
      'src/counter.c:2:6',
      'src/main.c:5:3',
      'src/main.c:6:3',
      'src/twice.c:2:33',
    ];
    // The background index covers files that are not open; its first build may take a moment.
    let found: string[] = [];
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      found = [
        ...new Set((await lsp.references('src/counter.c', { line: 2, column: 6 })).map(at)),
      ].sort();
      if (found.length >= expected.length) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(found).toEqual(expected);
    expect(lsp.coverage('c')).toMatchObject({ projects: ['compile_commands.json'] });
  });
});
