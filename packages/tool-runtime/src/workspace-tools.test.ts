import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, runOne } from '../test/helpers.js';
import { createToolRuntime, type ToolRuntime } from './runtime.js';
import { createWorkspaceTools } from './workspace-tools.js';

let temp: { dir: string; cleanup: () => void };
let ws: string;
let runtime: ToolRuntime;

beforeEach(() => {
  temp = makeTempDir();
  ws = temp.dir;
  runtime = createToolRuntime({
    cwd: ws,
    tools: createWorkspaceTools({ cwd: ws, exclude: ['private/**'] }),
    approval: 'never-ask',
  });
});
afterEach(() => temp.cleanup());

const write = (path: string, content: string | Buffer) => {
  mkdirSync(join(ws, path, '..'), { recursive: true });
  writeFileSync(join(ws, path), content);
};

describe('read', () => {
  it('numbers lines, reads a range and says how to continue', async () => {
    write('a.txt', Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'));
    const all = await runOne(runtime, 'read', { path: 'a.txt' });
    expect(all.content.split('\n')[0]).toBe('     1\tline 1');
    expect(all.meta).toMatchObject({ sourcePath: 'a.txt', contentType: 'text/plain', lines: 10 });
    const part = await runOne(runtime, 'read', { path: 'a.txt', offset: 3, limit: 2 });
    expect(part.content).toBe(
      '     3\tline 3\n     4\tline 4\n[Showing lines 3-4 of 10. Use offset=5 to read more.]',
    );
    expect((await runOne(runtime, 'read', { path: 'a.txt', offset: 99 })).content).toMatch(
      /past the end/,
    );
  });

  it('detects binary files, refuses oversized reads without a range, and reports missing files', async () => {
    write('bin.dat', Buffer.from([1, 2, 0, 3]));
    const binary = await runOne(runtime, 'read', { path: 'bin.dat' });
    expect(binary.content).toMatch(/binary file \(4 bytes\)/);
    expect(binary.meta?.contentType).toBe('application/octet-stream');
    const small = createToolRuntime({
      cwd: ws,
      tools: createWorkspaceTools({ cwd: ws }).filter((t) => t.spec.name !== 'read'),
      approval: 'never-ask',
    });
    const { createReadTool } = await import('./tool-read.js');
    small.register(createReadTool({ cwd: ws, maxFileBytes: 10 }) as never);
    write('big.txt', 'x\n'.repeat(100));
    expect((await runOne(small, 'read', { path: 'big.txt' })).content).toMatch(
      /too large to read at once/,
    );
    expect((await runOne(small, 'read', { path: 'big.txt', limit: 1 })).content).toBe(
      '     1\tx\n[Showing lines 1-1 of 100. Use offset=2 to read more.]',
    );
    expect((await runOne(runtime, 'read', { path: 'nope.txt' })).content).toMatch(
      /File not found: nope.txt/,
    );
    expect((await runOne(runtime, 'read', { path: '.' })).content).toMatch(/is a directory/);
  });
});

describe('write and edit', () => {
  it('creates new files (with parents) and refuses to overwrite a file never read', async () => {
    const created = await runOne(runtime, 'write', { path: 'new/dir/f.txt', content: 'hello' });
    expect(created.content).toBe('Created new/dir/f.txt (5 bytes).');
    expect(readFileSync(join(ws, 'new/dir/f.txt'), 'utf8')).toBe('hello');
    write('old.txt', 'old');
    const refused = await runOne(runtime, 'write', { path: 'old.txt', content: 'new' });
    expect(refused.isError).toBe(true);
    expect(refused.content).toMatch(/has not been read in this session; read it first/);
    await runOne(runtime, 'read', { path: 'old.txt' });
    expect((await runOne(runtime, 'write', { path: 'old.txt', content: 'new' })).content).toBe(
      'Overwrote old.txt (3 bytes).',
    );
    expect(readFileSync(join(ws, 'old.txt'), 'utf8')).toBe('new');
  });

  it('edit applies several replacements atomically, or none when one fails', async () => {
    write('code.ts', 'const a = 1;\nconst b = 2;\nconst a2 = a;\n');
    await runOne(runtime, 'read', { path: 'code.ts' });
    const failed = await runOne(runtime, 'edit', {
      path: 'code.ts',
      edits: [
        { oldText: 'const b', newText: 'let b' },
        { oldText: 'missing', newText: 'x' },
      ],
    });
    expect(failed.content).toMatch(/edit 2: oldText was not found/);
    expect(readFileSync(join(ws, 'code.ts'), 'utf8')).toBe(
      'const a = 1;\nconst b = 2;\nconst a2 = a;\n',
    );
    const ambiguous = await runOne(runtime, 'edit', {
      path: 'code.ts',
      edits: [{ oldText: 'const', newText: 'let' }],
    });
    expect(ambiguous.content).toMatch(/occurs 3 times/);
    const done = await runOne(runtime, 'edit', {
      path: 'code.ts',
      edits: [
        { oldText: 'const b', newText: 'let b' },
        { oldText: 'const', newText: 'var', replaceAll: true },
      ],
    });
    expect(done.content).toBe('Edited code.ts: 3 replacement(s), first change at line 1.');
    expect(readFileSync(join(ws, 'code.ts'), 'utf8')).toBe('var a = 1;\nlet b = 2;\nvar a2 = a;\n');
  });

  it('follows a symlink that stays inside, and tracks the file by its real path', async () => {
    const { symlinkSync } = await import('node:fs');
    write('real.txt', 'alpha\n');
    symlinkSync('real.txt', join(ws, 'alias.txt'));
    expect((await runOne(runtime, 'read', { path: 'alias.txt' })).content).toBe('     1\talpha');
    const edited = await runOne(runtime, 'edit', {
      path: 'real.txt',
      edits: [{ oldText: 'alpha', newText: 'beta' }],
    });
    expect(edited.outcome).toBe('ok');
    expect(readFileSync(join(ws, 'real.txt'), 'utf8')).toBe('beta\n');
  });

  it('refuses changes in a read-only sandbox', async () => {
    runtime.setSandbox('read-only');
    const result = await runOne(runtime, 'write', { path: 'x.txt', content: 'x' });
    expect(result.content).toMatch(/the sandbox is read-only/);
    expect(runtime.sandbox).toBe('read-only');
  });
});

describe('grep, glob and list', () => {
  beforeEach(() => {
    write('.gitignore', 'build/\n*.log\n');
    write('src/a.ts', 'export const alpha = 1;\n// TODO alpha\nconst beta = 2;\n');
    write('src/nested/b.ts', 'import { alpha } from "../a";\n');
    write('src/nested/.gitignore', 'skip.ts\n');
    write('src/nested/skip.ts', 'alpha hidden by nested gitignore\n');
    write('build/out.js', 'alpha in build\n');
    write('debug.log', 'alpha in log\n');
    write('private/key.ts', 'alpha secret\n');
    write('bin.dat', Buffer.from([0, 97, 108, 112, 104, 97]));
  });

  it('grep finds matches with context, honours .gitignore (nested too), excludes and binary files', async () => {
    const result = await runOne(runtime, 'grep', { pattern: 'alpha' });
    expect(result.content.split('\n')).toEqual([
      'src/a.ts:1:export const alpha = 1;',
      'src/a.ts:2:// TODO alpha',
      'src/nested/b.ts:1:import { alpha } from "../a";',
    ]);
    const withContext = await runOne(runtime, 'grep', {
      pattern: 'TODO',
      context: 1,
      glob: '**/*.ts',
    });
    expect(withContext.content).toBe(
      'src/a.ts-1-export const alpha = 1;\nsrc/a.ts:2:// TODO alpha\nsrc/a.ts-3-const beta = 2;',
    );
    const capped = await runOne(runtime, 'grep', { pattern: 'alpha', maxMatches: 1 });
    expect(capped.content).toMatch(/Stopped at 1 matches/);
    expect((await runOne(runtime, 'grep', { pattern: '(' })).content).toMatch(
      /Invalid regular expression/,
    );
    expect(
      (await runOne(runtime, 'grep', { pattern: 'ALPHA', ignoreCase: true, path: 'src/a.ts' })).meta
        ?.matches,
    ).toBe(2);
  });

  it('glob matches workspace-relative paths and list shows a tree', async () => {
    expect((await runOne(runtime, 'glob', { pattern: '**/*.ts' })).content).toBe(
      'src/a.ts\nsrc/nested/b.ts',
    );
    expect((await runOne(runtime, 'glob', { pattern: '*.ts', path: 'src' })).content).toBe(
      'src/a.ts',
    );
    const listing = await runOne(runtime, 'list', {});
    expect(listing.content.split('\n')).toEqual([
      '.gitignore',
      'bin.dat',
      'src/',
      'src/a.ts',
      'src/nested/',
    ]);
    const deep = await runOne(runtime, 'list', { path: 'src', depth: 3 });
    expect(deep.content.split('\n')).toEqual([
      'src/a.ts',
      'src/nested/',
      'src/nested/.gitignore',
      'src/nested/b.ts',
    ]);
  });
});
