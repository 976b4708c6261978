import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { loadShellParser } from './shell-command-parse.js';

// The shell parser's WebAssembly ships in grammars/ (see grammars/README.md).
const grammars = new URL('../grammars/', import.meta.url);

describe('shipped WebAssembly', () => {
  it("is web-tree-sitter's own runtime, byte for byte (the devDependency its JS is bundled from)", () => {
    const require = createRequire(import.meta.url);
    const installed = readFileSync(require.resolve('web-tree-sitter/web-tree-sitter.wasm'));
    expect(readFileSync(new URL('web-tree-sitter.wasm', grammars)).equals(installed)).toBe(true);
  });

  it('loads the bash grammar into that runtime and parses with it', async () => {
    const parser = await loadShellParser();
    const line = parser.parse('FOO=1 sudo -u x \\rm -rf "$DIR" | tee log && echo "$(whoami)"');
    expect(line.commands.map((command) => command.name)).toEqual(['rm', 'tee', 'whoami', 'echo']);
  });
});
