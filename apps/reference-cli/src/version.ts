import { readFileSync } from 'node:fs';

let cached: string | undefined;

/**
 * The CLI's version, from its package.json. This module sits one level below the package root
 * both as a source file (`src/`) and bundled into a chunk of `dist/`, so the one relative path
 * serves both (a command module of its own may sit deeper in `src/` than its chunk in `dist/`).
 */
export function cliVersion(): string {
  cached ??= (
    JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;
  return cached;
}
