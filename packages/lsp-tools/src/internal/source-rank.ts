// Ranks workspace-source candidates of a by-name lookup: the definition a person means by a name
// is the exported one in the package's source, not a helper of the same name in a test. Within
// source, an exported declaration outside tests comes first, then other declarations outside
// tests, then tests (exported, then not); ties keep the path order.

import type { LspSymbol } from '../types.js';
import type { LineReader } from './format.js';
import { displayPath } from './paths.js';

// Folders that hold tests, fixtures, benchmarks and examples rather than the code under test.
const TEST_DIRECTORIES = new Set([
  'test',
  'tests',
  '__tests__',
  '__mocks__',
  'spec',
  'specs',
  'fixtures',
  'bench',
  'benchmarks',
  'e2e',
]);
// File names of tests and benchmarks: `x.test.ts`, `x.spec.tsx`, `x.test-d.ts`, `x.bench.ts`,
// `test_x.py`, `x_test.go`, `x_test.py`.
const TEST_FILE = /(\.(test|spec|bench)(-d)?\.[cm]?[jt]sx?$)|(^test_.*\.py$)|(_test\.(go|py)$)/;

/** True when a workspace path is a test, fixture or benchmark file. */
export function isTestPath(root: string, path: string): boolean {
  const segments = displayPath(root, path).split('/');
  const name = segments.pop() ?? '';
  return TEST_FILE.test(name) || segments.some((segment) => TEST_DIRECTORIES.has(segment));
}

// An exported declaration: `export …` (TypeScript, JavaScript), `pub …` (Rust), or CommonJS.
const EXPORTED = /^\s*(export\s|pub(\([^)]*\))?\s|module\.exports\b|exports\.)/;

/** True when the symbol's declaration line exports it. */
export function isExportedDeclaration(symbol: LspSymbol, reader: LineReader): boolean {
  const text = reader.raw(symbol.location.path, symbol.location.line);
  return text !== undefined && EXPORTED.test(text);
}

/**
 * The rank of a workspace-source candidate, lower first: 0 exported outside tests, 1 other
 * declarations outside tests, 2 exported in tests, 3 other declarations in tests.
 */
export function sourceRank(root: string, symbol: LspSymbol, reader: LineReader): number {
  return (
    (isTestPath(root, symbol.location.path) ? 2 : 0) +
    (isExportedDeclaration(symbol, reader) ? 0 : 1)
  );
}
