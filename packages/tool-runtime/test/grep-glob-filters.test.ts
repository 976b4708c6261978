// The file filters a model reaches for first: grep's `glob` as ripgrep's `-g` ("*.ts" is a file
// name in any directory, "src/**/*.ts" a workspace-relative path), and the glob tool's pattern
// relative to the directory searched as well as to the workspace root.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRuntime, type ToolRuntime } from '../src/runtime.js';
import { createGlobTool } from '../src/tool-glob.js';
import { createGrepTool } from '../src/tool-grep.js';
import { createListTool } from '../src/tool-list.js';
import { makeTempDir, runOne } from './helpers.js';

let temp: { dir: string; cleanup: () => void };
let runtimes: ToolRuntime[];

beforeAll(() => {
  temp = makeTempDir('spine-grep-glob-');
  const write = (rel: string, text: string): void => {
    mkdirSync(dirname(join(temp.dir, rel)), { recursive: true });
    writeFileSync(join(temp.dir, rel), text);
  };
  write('top.ts', 'needle top\n');
  write('top.js', 'needle js\n');
  write('src/a.ts', 'needle a\n');
  write('src/deep/b.ts', 'needle b\n');
  write('src/deep/c.md', 'needle c\n');
  write('lib/src/d.ts', 'needle d\n');
  write('.gitignore', 'vendor/\n');
  write('vendor/pkg/e.ts', 'needle e\n');
  write('vendor/pkg/.gitignore', 'skip.ts\n');
  write('vendor/pkg/skip.ts', 'needle skipped\n');
  // With and without ripgrep: the filters are the walk's, so both give the same results.
  runtimes = [null, undefined].map((ripgrepPath) =>
    createToolRuntime({
      cwd: temp.dir,
      approval: 'never-ask',
      sandboxBackend: null,
      tools: [
        createGrepTool({ cwd: temp.dir, ripgrepPath, timeoutMs: 60_000 }),
        createGlobTool({ cwd: temp.dir }),
        createListTool({ cwd: temp.dir }),
      ],
    }),
  );
});
afterAll(() => temp.cleanup());

const files = (content: string): string[] => content.split('\n').map((line) => line.split(':')[0]!);

describe('grep glob and the glob tool', () => {
  it.each([
    ['*.ts', undefined, ['top.ts', 'src/a.ts', 'lib/src/d.ts', 'src/deep/b.ts']],
    ['*.{md,js}', undefined, ['top.js', 'src/deep/c.md']],
    ['src/**/*.ts', undefined, ['src/a.ts', 'src/deep/b.ts']],
    ['src/*.ts', undefined, ['src/a.ts']],
    ['**/src/*.ts', undefined, ['src/a.ts', 'lib/src/d.ts']],
    ['*.ts', 'src', ['src/a.ts', 'src/deep/b.ts']],
    ['deep/*', 'src', ['src/deep/b.ts', 'src/deep/c.md']],
    ['src/deep/*.md', 'src', ['src/deep/c.md']],
  ])('grep glob %s (path %s)', async (glob, path, expected) => {
    for (const runtime of runtimes) {
      const result = await runOne(runtime, 'grep', { pattern: 'needle', glob, path });
      expect(files(result.content)).toEqual(expected);
    }
  });

  it.each([
    ['*.ts', undefined, ['top.ts']],
    ['**/*.ts', undefined, ['lib/src/d.ts', 'src/a.ts', 'src/deep/b.ts', 'top.ts']],
    ['*.ts', 'src', ['src/a.ts']],
    ['**/*.ts', 'src', ['src/a.ts', 'src/deep/b.ts']],
    ['src/*.ts', 'src', ['src/a.ts']],
    ['deep/*', 'src', ['src/deep/b.ts', 'src/deep/c.md']],
  ])('glob %s (path %s)', async (pattern, path, expected) => {
    const result = await runOne(runtimes[0]!, 'glob', { pattern, path });
    expect(result.content.split('\n')).toEqual(expected);
  });
});

describe('grep context', () => {
  it('takes lines before and after a match separately, with -- between separate groups', async () => {
    writeFileSync(join(temp.dir, 'ctx.txt'), 'l1\nl2\nhit3\nl4\nl5\nl6\nl7\nhit8\nl9\n');
    const expectations: Array<[Record<string, number>, string[]]> = [
      [{ before: 1 }, ['-2-l2', ':3:hit3', '--', '-7-l7', ':8:hit8']],
      [{ after: 2 }, [':3:hit3', '-4-l4', '-5-l5', '--', ':8:hit8', '-9-l9']],
      [{ context: 2, after: 0 }, ['-1-l1', '-2-l2', ':3:hit3', '--', '-6-l6', '-7-l7', ':8:hit8']],
      [
        { before: 2, after: 2 },
        ['-1-l1', '-2-l2', ':3:hit3', '-4-l4', '-5-l5', '-6-l6', '-7-l7', ':8:hit8', '-9-l9'],
      ],
    ];
    for (const runtime of runtimes)
      for (const [args, lines] of expectations) {
        const result = await runOne(runtime, 'grep', { pattern: 'hit', path: 'ctx.txt', ...args });
        expect(result.content.split('\n')).toEqual(
          lines.map((line) => (line === '--' ? line : `ctx.txt${line}`)),
        );
      }
  });
});

describe('a path inside an ignored directory', () => {
  it('is searched when named, with the .gitignore files at and below it', async () => {
    for (const runtime of runtimes) {
      const everywhere = await runOne(runtime, 'grep', { pattern: 'needle' });
      expect(everywhere.content).not.toContain('vendor/');
      const named = await runOne(runtime, 'grep', { pattern: 'needle', path: 'vendor' });
      expect(named.content).toBe('vendor/pkg/e.ts:1:needle e');
      const deeper = await runOne(runtime, 'grep', { pattern: 'needle', path: 'vendor/pkg' });
      expect(deeper.content).toBe('vendor/pkg/e.ts:1:needle e');
    }
    const globbed = await runOne(runtimes[0]!, 'glob', { pattern: '**/*.ts', path: 'vendor' });
    expect(globbed.content).toBe('vendor/pkg/e.ts');
    const listed = await runOne(runtimes[0]!, 'list', { path: 'vendor', depth: 2 });
    expect(listed.content.split('\n')).toEqual([
      'vendor/pkg/',
      'vendor/pkg/.gitignore',
      'vendor/pkg/e.ts',
    ]);
  });
});

describe('grep output "files"', () => {
  it('lists each matching file once, in walk order, capped by maxMatches', async () => {
    for (const runtime of runtimes) {
      const listed = await runOne(runtime, 'grep', { pattern: 'needle', output: 'files' });
      expect(listed.content.split('\n')).toEqual([
        'top.js',
        'top.ts',
        'src/a.ts',
        'lib/src/d.ts',
        'src/deep/b.ts',
        'src/deep/c.md',
      ]);
      expect(listed.meta?.files).toBe(6);
      const capped = await runOne(runtime, 'grep', {
        pattern: 'needle',
        output: 'files',
        maxMatches: 2,
      });
      expect(capped.content.split('\n')).toEqual([
        'top.js',
        'top.ts',
        '[Stopped at 2 files; narrow the pattern, path or glob, or raise maxMatches.]',
      ]);
    }
  });
});
