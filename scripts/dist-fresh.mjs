#!/usr/bin/env node
// Run by `npm run build` after `turbo run build`: marks every workspace's built entry
// (dist/index.js, dist/main.js) as modified now. `spine` (apps/reference-cli/bin/spine.js) and
// the cli/startup benchmark run the built CLI only when no source file is newer than its dist, and
// fall back to the TypeScript sources through tsx (about 8x slower to start) otherwise. Turbo
// leaves outputs untouched when the ones in place already match its cache, so a source rewritten
// with the same content (a checkout, a stash, a restore) kept its new time over an older dist
// forever. Turbo has just made dist match the current sources' content, so now is its true time.
import { existsSync, readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';

const now = new Date();
let marked = 0;
for (const group of ['packages', 'apps']) {
  if (!existsSync(group)) continue;
  for (const name of readdirSync(group)) {
    for (const entry of ['index.js', 'main.js']) {
      const path = join(group, name, 'dist', entry);
      if (!existsSync(path)) continue;
      utimesSync(path, now, now);
      marked++;
    }
  }
}
console.log(`dist-fresh: ${marked} built entries marked current`);
