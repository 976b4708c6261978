// typescript-language-server on a copy of this repository (every package, app, test,
// benchmark and guide example; two packages with generated dist/*.d.ts build output), checked
// against ground truth computed here by the TypeScript compiler API over all those files.
// The suite runs twice, on two fresh managers, in two different orders, and the answers must
// be identical. Heavy: one server per order, so every query of an order shares it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { ToolExecutionContext } from '@spine/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLspManager,
  createLspTools,
  type LspLocation,
  type LspManager,
} from '../src/index.js';
import { copyRepository } from './support/repo-copy.js';
import { GroundTruth, pickSymbols, type TruthSymbol } from './support/ts-ground-truth.js';

let root: string;
let workspace: string;
let truth: GroundTruth;
let symbols: TruthSymbol[];

interface Answers {
  definitionByName: Map<string, string>;
  definitionByPosition: Map<string, string[]>;
  references: Map<string, string[]>;
  incoming: Map<string, string[]>;
  symbolCount: number;
  notes: string[];
}
const runs: Answers[] = [];

const at = (location: LspLocation): string =>
  `${relative(workspace, location.path)}:${location.line}:${location.column}`;
const parse = (where: string) => {
  const [path, line, column] = where.split(':');
  return { path: path!, position: { line: Number(line), column: Number(column) } };
};

/** Runs the whole question set on a fresh manager, in the given order of symbols. */
async function ask(order: TruthSymbol[], warmUp: (lsp: LspManager) => Promise<unknown>) {
  // Two cores shared with other test files: loading every project may take minutes here.
  const lsp = createLspManager({
    cwd: workspace,
    requestTimeoutMs: 240_000,
    analysisTimeoutMs: 240_000,
  });
  const context: ToolExecutionContext = {
    callId: 'repo',
    signal: new AbortController().signal,
    cwd: workspace,
    sandbox: 'read-only',
  };
  const tools = new Map(createLspTools(lsp).map((tool) => [tool.spec.name, tool]));
  const answers: Answers = {
    definitionByName: new Map(),
    definitionByPosition: new Map(),
    references: new Map(),
    incoming: new Map(),
    symbolCount: 0,
    notes: [],
  };
  try {
    await warmUp(lsp);
    for (const symbol of order) {
      const byName = await tools.get('lsp_definition')!.execute({ symbol: symbol.name }, context);
      answers.definitionByName.set(
        symbol.name,
        byName.content.split('\n')[1]?.split('  ')[0] ?? '',
      );
      // From a use in another package (a test file if there is one) back to the declaration.
      const uses = [...symbol.references].filter((where) => !where.startsWith(`${symbol.owner}/`));
      const use = uses.find((where) => where.includes('/test/')) ?? uses[0]!;
      const { path, position } = parse(use);
      answers.definitionByPosition.set(symbol.name, (await lsp.definition(path, position)).map(at));
      const declaration = parse(symbol.declaration);
      const references = await lsp.references(declaration.path, declaration.position);
      answers.references.set(symbol.name, references.map(at).sort());
      if (symbol.kind === 'function') {
        const hierarchy = await lsp.callHierarchy(declaration.path, declaration.position);
        const sites = hierarchy.flatMap((each) =>
          each.incoming.flatMap((call) => call.callSites.map(at)),
        );
        answers.incoming.set(symbol.name, [...new Set(sites)].sort());
      }
      const tool = await tools.get('lsp_references')!.execute(
        {
          path: declaration.path,
          line: declaration.position.line,
          column: declaration.position.column,
          max: 1,
        },
        context,
      );
      answers.notes.push(
        tool.content
          .split('\n')
          .filter((line) => line.startsWith('Searched') || line.startsWith('Possibly'))
          .join(' '),
      );
    }
    answers.symbolCount = (await lsp.workspaceSymbols('Session')).length;
  } finally {
    await lsp.shutdown();
  }
  return answers;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'spine-lsp-repo-'));
  workspace = copyRepository(join(root, 'repo'), ['protocol', 'tool-runtime']);
  truth = new GroundTruth(workspace);
  symbols = pickSymbols(truth.exportedSymbols(), 10);
  // Order 1: as picked, cold. Order 2: reversed, after a query from a test file and a
  // workspace symbol search (what made answers drift before).
  runs.push(await ask(symbols, async () => undefined));
  const firstTest = [...symbols[0]!.references].find((where) => where.includes('/test/'));
  runs.push(
    await ask([...symbols].reverse(), async (lsp) => {
      if (firstTest) await lsp.definition(parse(firstTest).path, parse(firstTest).position);
      await lsp.workspaceSymbols('Session');
    }),
  );
}, 1_200_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('typescript-language-server on this repository', () => {
  it('picks ten exported symbols used across packages', () => {
    expect(symbols).toHaveLength(10);
    expect(new Set(symbols.map((symbol) => symbol.owner)).size).toBeGreaterThanOrEqual(5);
  });

  it('finds every definition in source, by name and from a use in another package', () => {
    for (const symbol of symbols) {
      expect(runs[0]!.definitionByName.get(symbol.name), symbol.name).toBe(symbol.declaration);
      expect(runs[0]!.definitionByPosition.get(symbol.name), symbol.name).toEqual([
        symbol.declaration,
      ]);
    }
  });

  it('finds references across the whole repository with recall and precision of at least 0.95, none in dist/', () => {
    let found = 0;
    let correct = 0;
    let expected = 0;
    for (const symbol of symbols) {
      const answer = (runs[0]!.references.get(symbol.name) ?? []).filter((where) =>
        truth.covers(where.split(':')[0]!),
      );
      const all = runs[0]!.references.get(symbol.name) ?? [];
      expect(
        all.filter((where) => /(^|\/)dist\//.test(where)),
        symbol.name,
      ).toEqual([]);
      const hits = answer.filter((where) => symbol.references.has(where)).length;
      const missed = [...symbol.references].filter((where) => !answer.includes(where));
      const extra = answer.filter((where) => !symbol.references.has(where));
      if (missed.length + extra.length > 0)
        console.log(
          `${symbol.name}: missed ${missed.slice(0, 5).join(' ')}; extra ${extra.slice(0, 5).join(' ')}`,
        );
      found += answer.length;
      correct += hits;
      expected += symbol.references.size;
      expect(hits / symbol.references.size, `recall of ${symbol.name}`).toBeGreaterThanOrEqual(0.9);
    }
    const recall = correct / expected;
    const precision = correct / found;
    console.log(
      `references: recall ${recall.toFixed(3)}, precision ${precision.toFixed(3)} over ${expected} expected`,
    );
    expect(recall).toBeGreaterThanOrEqual(0.95);
    expect(precision).toBeGreaterThanOrEqual(0.95);
  });

  it('finds incoming calls from other packages, tests included', () => {
    let expected = 0;
    let hits = 0;
    let crossPackage = 0;
    for (const symbol of symbols.filter((each) => each.kind === 'function')) {
      const sites = new Set(runs[0]!.incoming.get(symbol.name) ?? []);
      for (const call of symbol.calls) {
        expected += 1;
        if (sites.has(call)) {
          hits += 1;
          if (!call.startsWith(`${symbol.owner}/`)) crossPackage += 1;
        }
      }
    }
    console.log(`incoming calls: ${hits}/${expected}, ${crossPackage} from other packages`);
    expect(expected).toBeGreaterThan(0);
    expect(hits / expected).toBeGreaterThanOrEqual(0.95);
    expect(crossPackage).toBeGreaterThan(0);
  });

  it('says what was searched, and the answers do not depend on what was asked before', () => {
    expect(runs[0]!.notes[0]).toMatch(
      /^Searched: \d+ projects \(.*\) and \d+ files outside any project\.$/,
    );
    for (const [key, value] of Object.entries(runs[0]!)) {
      expect(runs[1]![key as keyof Answers], key).toEqual(value);
    }
  });
});
