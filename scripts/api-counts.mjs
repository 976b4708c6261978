#!/usr/bin/env node
// Exported-symbol count of every published package, per entry point, read from the API reports
// (`<package>/API.md`, written by scripts/api-report.mjs): the names in each entry point's
// `export { … }` lists (re-exports included), each name once.
//   node scripts/api-counts.mjs          a Markdown table
//   node scripts/api-counts.mjs --json   one JSON object
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '..');
const rows = [];
for (const group of ['packages', 'apps']) {
  for (const dir of readdirSync(join(repo, group)).sort()) {
    const path = join(repo, group, dir, 'API.md');
    if (!existsSync(path)) continue;
    const text = readFileSync(path, 'utf8');
    const name = /^# API report: (\S+)/m.exec(text)?.[1] ?? dir;
    const entries = {};
    for (const section of text.split(/^## /m).slice(1)) {
      const entry = section.slice(0, section.indexOf('\n')).trim();
      const names = new Set();
      for (const [, list] of section.matchAll(/^export \{([^}]*)\}/gm)) {
        for (const item of list.split(',')) {
          const symbol = item
            .replace(/^\s*type\s+/, '')
            .split(/\s+as\s+/)
            .at(-1)
            ?.trim();
          if (symbol) names.add(symbol);
        }
      }
      entries[entry] = names.size;
    }
    const total = Object.values(entries).reduce((sum, count) => sum + count, 0);
    rows.push({ package: name, total, entries });
  }
}
if (process.argv.includes('--json')) console.log(JSON.stringify({ packages: rows }));
else {
  console.log('| package | exported symbols | per entry point |\n| --- | ---: | --- |');
  for (const row of rows) {
    const parts = Object.entries(row.entries).map(([entry, count]) => `${entry} ${count}`);
    console.log(`| ${row.package} | ${row.total} | ${parts.join(', ')} |`);
  }
}
