// ripgrep is only a prefilter for grep: the results with rg must be byte-for-byte those without it,
// on any text (Unicode, invalid UTF-8, CRLF, case folding to K/ſ) and any pattern, and any failure
// of rg falls back to searching every file. Needs the real `rg` (ripgrep, installed by .ci/run).
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileLineMatcher } from '../src/internal/grep-matcher.js';
import { locateRipgrep, planRipgrep } from '../src/internal/grep-ripgrep.js';
import { createToolRuntime, type ToolRuntime } from '../src/runtime.js';
import { createGrepTool } from '../src/tool-grep.js';
import { nodeWorkspaceFs, type WorkspaceFs } from '../src/workspace-fs.js';
import { makeTempDir, runOne } from './helpers.js';

let rg: string;
let scripts: { dir: string; cleanup: () => void };

beforeAll(async () => {
  const found = await locateRipgrep(undefined);
  if (!found) throw new Error('ripgrep (rg) is not on PATH: install it (apt-get install ripgrep)');
  rg = found;
  scripts = makeTempDir('spine-grep-rg-scripts-');
});
afterAll(() => scripts.cleanup());

function runtimeFor(dir: string, ripgrepPath: string | null): ToolRuntime {
  return createToolRuntime({
    cwd: dir,
    approval: 'never-ask',
    sandboxBackend: null,
    tools: [createGrepTool({ cwd: dir, ripgrepPath, timeoutMs: 60_000 })],
  });
}

/** Result metadata without the runtime's wall-clock figure. */
function withoutTiming(meta: Record<string, unknown> | undefined): Record<string, unknown> {
  const { durationMs: _ignored, ...rest } = meta ?? {};
  return rest;
}

/** A stand-in executable for rg written as a shell script. */
function script(name: string, body: string): string {
  const path = join(scripts.dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

// Short lines over a small alphabet, so a match often hinges on one non-ASCII character.
const pieces = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'b', 'k', 's', 'é', 'ß', '\u212a', '\u017f', '日') },
  {
    weight: 3,
    arbitrary: fc.constantFrom('K', 'S', 'x', '0', ' ', '_', '.', '!', '\t', '\r', 'foo', '😀'),
  },
  { weight: 1, arbitrary: fc.constantFrom('\u00a0', '\ufeff', 'éfoo', 'aéb') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(Buffer.from([0xff]), Buffer.from([0xc3]), Buffer.from([0xe2, 0x82])),
  },
);
const fileContent = fc
  .array(fc.array(pieces, { maxLength: 6 }), { maxLength: 3 })
  .map((lines) =>
    Buffer.concat(
      lines.flatMap((parts) => [
        ...parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part)),
        Buffer.from('\n'),
      ]),
    ),
  );
const atom = fc.constantFrom(
  ...[
    'a',
    'b',
    'k',
    's',
    'x',
    'foo',
    '!',
    '_',
    ' ',
    'é',
    'ß',
    '日',
    '.',
    '\\w',
    '\\W',
    '\\b',
    '\\B',
  ],
  ...[
    '\\d',
    '\\D',
    '\\s',
    '\\S',
    '[a-k]',
    '[^a]',
    '[[:alpha:]]',
    '[[:^space:]]',
    '\\x{e9}',
    '(?i)k',
  ],
  ...['\\.', '(?:ab|é)', '\\pL', '\\xff', '[\\x80-\\xff]', '(?s:.)', '.*', '.+', 'a.*b', 'a.+!'],
);
const quantifier = fc.constantFrom('', '', '', '+', '*', '?', '{2}', '{1,3}');
const pattern = fc
  .tuple(
    fc.boolean(),
    fc.array(fc.tuple(atom, quantifier), { minLength: 1, maxLength: 3 }),
    fc.boolean(),
    fc.option(fc.array(fc.tuple(atom, quantifier), { minLength: 1, maxLength: 2 }), {
      freq: 4,
    }),
  )
  .map(([start, parts, end, alternative]) => {
    const sequence = (items: Array<[string, string]>): string =>
      items.map(([a, q]) => (q === '' ? a : `(?:${a})${q}`)).join('');
    const main = `${start ? '^' : ''}${sequence(parts)}${end ? '$' : ''}`;
    return alternative ? `${main}|${sequence(alternative)}` : main;
  });

describe('grep with ripgrep as a prefilter', () => {
  it('gives exactly the results of the JS path on generated files and patterns', async () => {
    let prefiltered = 0;
    let runs = 0;
    let found = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fileContent, { minLength: 1, maxLength: 6 }),
        pattern,
        fc.boolean(),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 2 }),
        fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
        fc.constantFrom(undefined, 'content' as const, 'files' as const),
        async (files, regex, ignoreCase, maxMatches, context, before, after, output) => {
          const matcher = compileLineMatcher(regex, { ignoreCase });
          const temp = makeTempDir('spine-grep-rg-');
          try {
            mkdirSync(join(temp.dir, 'sub'));
            for (const [index, content] of files.entries())
              writeFileSync(join(temp.dir, index % 2 ? 'sub' : '.', `f${index}.txt`), content);
            const args = { pattern: regex, ignoreCase, maxMatches, context, before, after, output };
            const plain = await runOne(runtimeFor(temp.dir, null), 'grep', args);
            const assisted = await runOne(runtimeFor(temp.dir, rg), 'grep', args);
            expect(assisted.content).toBe(plain.content);
            expect(assisted.outcome).toBe(plain.outcome);
            expect(withoutTiming(assisted.meta)).toEqual(withoutTiming(plain.meta));
            runs++;
            if (Number(plain.meta?.matches ?? 0) > 0) found++;
            if (
              !('error' in matcher) &&
              planRipgrep(regex, {
                ignoreCase,
                matchesEmptyLine: matcher.matchesEmptyLine,
                maxCount: maxMatches,
              })
            )
              prefiltered++;
          } finally {
            temp.cleanup();
          }
        },
      ),
      { numRuns: 200 },
    );
    expect(found).toBeGreaterThan(runs / 4);
    // The property is only worth something if rg really took part in a good share of the runs.
    expect(prefiltered).toBeGreaterThan(runs / 4);
  }, 240_000);

  it.each([
    ['a.b', false, 'x\naéb\n'],
    ['^.{2}$', false, 'aé\n'],
    ['\\bfoo', false, 'éfoo\n'],
    ['a\\Wb', false, 'aéb\n'],
    ['[^x]!', false, 'ß!\n'],
    ['k', true, 'the \u212a sign\n'],
    ['[r-t]', true, '\u017f only\n'],
    ['^$', false, 'no empty line but the last\n'],
    ['x*', false, ''],
    ['^\\S$', false, '\ufeff\n'],
  ])(
    'finds %s (ignoreCase %s) where a byte-level rg alone would not',
    async (regex, ignoreCase, text) => {
      const temp = makeTempDir('spine-grep-rg-case-');
      try {
        writeFileSync(join(temp.dir, 'a.txt'), 'nothing here\n');
        writeFileSync(join(temp.dir, 'b.txt'), text);
        const args = { pattern: regex, ignoreCase };
        const plain = await runOne(runtimeFor(temp.dir, null), 'grep', args);
        const assisted = await runOne(runtimeFor(temp.dir, rg), 'grep', args);
        expect(plain.content).toMatch(/^b\.txt:\d+:/m);
        expect(assisted.content).toBe(plain.content);
      } finally {
        temp.cleanup();
      }
    },
    60_000,
  );

  it('plans rg only for ASCII patterns that cannot match an empty line', () => {
    const plan = (regex: string, ignoreCase = false) =>
      planRipgrep(regex, {
        ignoreCase,
        maxCount: 100,
        matchesEmptyLine: (compileLineMatcher(regex, {}) as { matchesEmptyLine: boolean })
          .matchesEmptyLine,
      });
    expect(plan('createToolRuntime')?.args).toEqual(expect.arrayContaining(['--no-unicode']));
    expect(plan('createToolRuntime')?.args).not.toContain('[\\x80-\\xFF]');
    expect(plan('a.b')?.args).toContain('[\\x80-\\xFF]');
    expect(plan('a.{2}b')?.args).toContain('[\\x80-\\xFF]');
    expect(plan('a.*b')?.args).not.toContain('[\\x80-\\xFF]');
    expect(plan('a.+b')?.args).not.toContain('[\\x80-\\xFF]');
    expect(plan('a\\.b')?.args).not.toContain('[\\x80-\\xFF]');
    expect(plan('a\\\\.b')?.args).toContain('[\\x80-\\xFF]');
    expect(plan('task', true)?.args).toContain('[\\x80-\\xFF]');
    expect(plan('ab', true)?.args).not.toContain('[\\x80-\\xFF]');
    expect(plan('é')).toBeUndefined();
    expect(plan('a*')).toBeUndefined();
    expect(plan('\\Aab')).toBeUndefined();
  });

  it('falls back to the JS path when rg fails or is not ripgrep', async () => {
    const temp = makeTempDir('spine-grep-rg-fallback-');
    try {
      writeFileSync(join(temp.dir, 'a.txt'), 'alpha\nbeta\n');
      writeFileSync(join(temp.dir, 'b.txt'), 'alphabet\n');
      const args = { pattern: 'alpha' };
      const expected = await runOne(runtimeFor(temp.dir, null), 'grep', args);
      expect(expected.content).toBe('a.txt:1:alpha\nb.txt:1:alphabet');
      const failing = script(
        'rg-exit-2',
        '[ "$1" = --version ] && { echo "ripgrep 13.0.0"; exit 0; }; exit 2',
      );
      const silent = script('rg-exit-1', 'exit 1');
      for (const ripgrepPath of [failing, silent, join(scripts.dir, 'missing-rg')]) {
        const result = await runOne(runtimeFor(temp.dir, ripgrepPath), 'grep', args);
        expect(result.content).toBe(expected.content);
      }
    } finally {
      temp.cleanup();
    }
  }, 60_000);

  it('an abort kills rg', async () => {
    const temp = makeTempDir('spine-grep-rg-abort-');
    try {
      writeFileSync(join(temp.dir, 'a.txt'), 'alpha\n');
      const pidFile = join(temp.dir, 'rg.pid');
      const slow = script(
        'rg-slow',
        `[ "$1" = --version ] && { echo "ripgrep 13.0.0"; exit 0; }; echo $$ > '${pidFile}'; exec sleep 60`,
      );
      const controller = new AbortController();
      const started = Date.now();
      const pending = runOne(
        runtimeFor(temp.dir, slow),
        'grep',
        { pattern: 'alpha' },
        controller.signal,
      );
      while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8').trim() === '') {
        if (Date.now() - started > 30_000) throw new Error('the rg stand-in never started');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const pid = Number(readFileSync(pidFile, 'utf8'));
      controller.abort();
      const result = await pending;
      expect(result.outcome).toBe('aborted');
      const alive = (): boolean => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      const deadline = Date.now() + 10_000;
      while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(alive()).toBe(false);
    } finally {
      temp.cleanup();
    }
  }, 60_000);

  it('skips a file removed between the walk and its read instead of failing', async () => {
    const temp = makeTempDir('spine-grep-gone-');
    try {
      writeFileSync(join(temp.dir, 'a.txt'), 'alpha\n');
      writeFileSync(join(temp.dir, 'gone.txt'), 'alpha gone\n');
      writeFileSync(join(temp.dir, 'z.txt'), 'alpha z\n');
      // The real file system, except that the file really disappears just before it is stat'ed.
      const fs: WorkspaceFs = {
        ...nodeWorkspaceFs,
        stat: async (path) => {
          if (path.endsWith('gone.txt')) rmSync(path, { force: true });
          return nodeWorkspaceFs.stat(path);
        },
      };
      const runtime = createToolRuntime({
        cwd: temp.dir,
        approval: 'never-ask',
        sandboxBackend: null,
        tools: [createGrepTool({ cwd: temp.dir, fs })],
      });
      const result = await runOne(runtime, 'grep', { pattern: 'alpha' });
      expect(result.outcome).toBe('ok');
      expect(result.content).toBe('a.txt:1:alpha\nz.txt:1:alpha z');
    } finally {
      temp.cleanup();
    }
  }, 60_000);
});
