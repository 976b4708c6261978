// rg exits with code 2 when it could not search some files (one removed since the walk listed it,
// which happens all the time in a workspace where builds run). The files it names on stderr are
// searched by RE2; its findings for the others still stand. Anything on stderr that names no
// file means rg's output is not relied on at all. Needs the real `rg` (installed by .ci/run).
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateRipgrep } from '../src/internal/grep-ripgrep.js';
import { createToolRuntime } from '../src/runtime.js';
import { createGrepTool } from '../src/tool-grep.js';
import { makeTempDir, runOne } from './helpers.js';

let rg: string;
let scripts: { dir: string; cleanup: () => void };

beforeAll(async () => {
  const found = await locateRipgrep(undefined);
  if (!found) throw new Error('ripgrep (rg) is not on PATH: install it (apt-get install ripgrep)');
  rg = found;
  scripts = makeTempDir('spine-grep-rg-errors-');
});
afterAll(() => scripts.cleanup());

/**
 * A wrapper around the real rg: before it runs, `gone.txt` is removed (the walk has listed it);
 * after it has run, `late.txt` gains a match. `late.txt` shows up in the result only if rg's
 * findings were set aside. `stderr` post-processes rg's error output.
 */
function wrapper(name: string, dir: string, stderr: string): string {
  const path = join(scripts.dir, name);
  writeFileSync(
    path,
    `#!/bin/sh
[ "$1" = --version ] && exec '${rg}' --version
rm -f '${dir}/gone.txt'
'${rg}' "$@" 2>'${dir}/.rg-errors'
code=$?
echo 'alpha late' > '${dir}/late.txt'
${stderr} < '${dir}/.rg-errors' >&2
exit $code
`,
  );
  chmodSync(path, 0o755);
  return path;
}

async function grepWith(dir: string, ripgrepPath: string): Promise<string> {
  writeFileSync(join(dir, 'a.txt'), 'alpha\n');
  writeFileSync(join(dir, 'gone.txt'), 'alpha gone\n');
  writeFileSync(join(dir, 'late.txt'), 'nothing yet\n');
  writeFileSync(join(dir, 'z.txt'), 'beta\nalpha z\n');
  const runtime = createToolRuntime({
    cwd: dir,
    approval: 'never-ask',
    sandboxBackend: null,
    tools: [createGrepTool({ cwd: dir, ripgrepPath, timeoutMs: 60_000, exclude: ['.rg-errors'] })],
  });
  const result = await runOne(runtime, 'grep', { pattern: 'alpha' });
  expect(result.outcome).toBe('ok');
  return result.content;
}

describe('grep when rg cannot search some files', () => {
  it.each([
    ['as rg 13 writes them', 'cat'],
    ["with newer rg's prefix", "sed 's/^/rg: /'"],
  ])(
    'keeps rg findings for the other files when errors name the failed ones (%s)',
    async (_label, stderr) => {
      const temp = makeTempDir('spine-grep-rg-exit2-');
      try {
        const content = await grepWith(temp.dir, wrapper(`rg-${stderr.length}`, temp.dir, stderr));
        expect(content).toBe('a.txt:1:alpha\nz.txt:2:alpha z');
      } finally {
        temp.cleanup();
      }
    },
    60_000,
  );

  it('searches every file itself when an error names no file', async () => {
    const temp = makeTempDir('spine-grep-rg-exit2-odd-');
    try {
      const odd = wrapper('rg-odd', temp.dir, "cat; echo 'rg: something else went wrong'; cat");
      const content = await grepWith(temp.dir, odd);
      expect(content).toBe('a.txt:1:alpha\nlate.txt:1:alpha late\nz.txt:2:alpha z');
    } finally {
      temp.cleanup();
    }
  }, 60_000);
});
