import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countSeverities, LineReader, selectLocations, wordAt } from './format.js';
import { findWord, nameLocation, symbolMatches } from './locate.js';

const dir = mkdtempSync(join(tmpdir(), 'spine-lsp-locate-'));
const file = join(dir, 'a.ts');
writeFileSync(file, 'export class Widget extends Base {\n  widget = new Widget();\n}\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = (line: number, column: number) => ({
  path: file,
  line,
  column,
  endLine: line,
  endColumn: column + 1,
});

describe('locating symbols', () => {
  it('finds a name as a whole word, from a column on', () => {
    expect(findWord('const total = subtotal + total;', 'total')).toBe(7);
    expect(findWord('const total = subtotal + total;', 'total', 8)).toBe(26);
    expect(findWord('a.$value + b', '$value')).toBe(3);
    expect(findWord('values', 'value')).toBeUndefined();
  });

  it('matches plain names and Container.name', () => {
    const symbol = { name: 'area', kind: 'method', containerName: 'Circle', location: at(1, 1) };
    expect(symbolMatches(symbol, 'area')).toBe(true);
    expect(symbolMatches(symbol, 'Circle.area')).toBe(true);
    expect(symbolMatches(symbol, 'Square.area')).toBe(false);
  });

  it('moves a declaration-wide symbol location onto its name', () => {
    const reader = new LineReader();
    const symbol = {
      name: 'Widget',
      kind: 'class',
      location: { ...at(1, 1), endLine: 3, endColumn: 2 },
    };
    expect(nameLocation(symbol, reader)).toEqual({
      path: file,
      line: 1,
      column: 14,
      endLine: 1,
      endColumn: 20,
    });
    expect(wordAt(reader, file, 2, 18)).toBe('Widget');
  });
});

describe('formatting', () => {
  it('keeps inside locations, removes duplicates, sorts and caps', () => {
    const outside = { path: '/elsewhere/lib.d.ts', line: 1, column: 1, endLine: 1, endColumn: 2 };
    const items = [at(2, 3), at(1, 14), at(2, 3), outside, at(2, 16)];
    const selection = selectLocations(dir, items, (each) => each, 2);
    expect(selection.shown.map((each) => `${each.line}:${each.column}`)).toEqual(['1:14', '2:3']);
    expect(selection).toMatchObject({ hidden: 1, outside: 1 });
  });

  it('counts severities in words', () => {
    const diagnostic = (severity: 'error' | 'warning' | 'hint') => ({
      location: at(1, 1),
      severity,
      message: 'm',
    });
    expect(countSeverities([diagnostic('error'), diagnostic('error'), diagnostic('warning')])).toBe(
      '2 errors, 1 warning',
    );
  });
});
