import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The bundled `examples/` folder (workspace and recorded sessions), found from this module's
 * location so it works from sources, from `dist/` and from an installed package.
 */
export function findExamplesDir(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth++) {
    const candidate = join(dir, 'examples');
    if (existsSync(join(candidate, 'workspace')) && existsSync(join(candidate, 'sessions')))
      return candidate;
    dir = dirname(dir);
  }
  return undefined;
}
