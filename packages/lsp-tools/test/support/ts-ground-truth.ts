// Ground truth for the TypeScript language-server tests: one compiler program over every
// source, test, benchmark and example file of a repository copy (the options of its
// tsconfig.check.json), and a walk of every identifier that resolves to a symbol.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** `path:line:col`, workspace-relative, 1-based. */
export type Place = string;

/** One exported function or class and everything that refers to it. */
export interface TruthSymbol {
  name: string;
  kind: 'function' | 'class';
  /** The package folder that declares it, e.g. `packages/protocol`. */
  owner: string;
  declaration: Place;
  references: Set<Place>;
  /** Call (or `new`) sites. */
  calls: Set<Place>;
}

const SKIP = /(^|\/)(node_modules|dist|fixtures|\.[^/]+)(\/|$)/;

function sourceFiles(root: string, folder: string, out: string[]): string[] {
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
    const rel = folder ? `${folder}/${entry.name}` : entry.name;
    if (SKIP.test(rel)) continue;
    if (entry.isDirectory()) sourceFiles(root, rel, out);
    else if (/\.(ts|mts|cts|tsx)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
      out.push(join(root, rel));
  }
  return out;
}

function place(root: string, node: ts.Node): Place {
  const file = node.getSourceFile();
  const { line, character } = file.getLineAndCharacterOfPosition(node.getStart());
  return `${relative(root, file.fileName)}:${line + 1}:${character + 1}`;
}

/** The ground truth program and its symbol queries. */
export class GroundTruth {
  readonly program: ts.Program;
  readonly checker: ts.TypeChecker;
  readonly files: ts.SourceFile[];

  constructor(readonly root: string) {
    const config = ts.getParsedCommandLineOfConfigFile(
      join(root, 'tsconfig.check.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: () => undefined,
      },
    );
    const names = ['packages', 'apps', 'docs'].flatMap((folder) => sourceFiles(root, folder, []));
    this.program = ts.createProgram(names, { ...config?.options, noEmit: true });
    this.checker = this.program.getTypeChecker();
    const wanted = new Set(names);
    this.files = this.program.getSourceFiles().filter((file) => wanted.has(file.fileName));
  }

  /** True when `path` (relative) is one of the files the truth covers. */
  covers(path: string): boolean {
    return this.files.some((file) => relative(this.root, file.fileName) === path);
  }

  private resolve(symbol: ts.Symbol | undefined): ts.Symbol | undefined {
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) {
      try {
        return this.checker.getAliasedSymbol(symbol);
      } catch {
        return symbol;
      }
    }
    return symbol;
  }

  /** Every identifier named `name` that resolves to `target`. */
  private uses(target: ts.Symbol, name: string): ts.Identifier[] {
    const found: ts.Identifier[] = [];
    for (const file of this.files) {
      if (!file.text.includes(name)) continue;
      const visit = (node: ts.Node): void => {
        if (ts.isIdentifier(node) && node.text === name) {
          let symbol = this.checker.getSymbolAtLocation(node);
          if (ts.isShorthandPropertyAssignment(node.parent))
            symbol = this.checker.getShorthandAssignmentValueSymbol(node.parent);
          if (this.resolve(symbol) === target) found.push(node);
        }
        ts.forEachChild(node, visit);
      };
      visit(file);
    }
    return found;
  }

  /** Exported functions and classes of each package's `src/index.ts`, with their references. */
  exportedSymbols(): TruthSymbol[] {
    const out: TruthSymbol[] = [];
    for (const file of this.files) {
      const rel = relative(this.root, file.fileName);
      const match = /^((?:packages|apps)\/[^/]+)\/src\/index\.ts$/.exec(rel);
      if (!match) continue;
      const module = this.checker.getSymbolAtLocation(file);
      if (!module) continue;
      for (const exported of this.checker.getExportsOfModule(module)) {
        const target = this.resolve(exported);
        const declaration = target?.declarations?.[0];
        if (!target || !declaration) continue;
        const isFunction = ts.isFunctionDeclaration(declaration);
        if ((!isFunction && !ts.isClassDeclaration(declaration)) || !declaration.name) continue;
        if (!this.files.includes(declaration.getSourceFile())) continue;
        const name = declaration.name.text;
        const uses = this.uses(target, name);
        const calls = uses.filter((node) => {
          const parent = node.parent;
          return (
            (ts.isCallExpression(parent) || ts.isNewExpression(parent)) &&
            parent.expression === node
          );
        });
        out.push({
          name,
          kind: isFunction ? 'function' : 'class',
          owner: match[1]!,
          declaration: place(this.root, declaration.name),
          references: new Set(uses.map((node) => place(this.root, node))),
          calls: new Set(calls.map((node) => place(this.root, node))),
        });
      }
    }
    return out;
  }
}

/**
 * Picks `count` symbols used across packages: most referencing files outside the owner first,
 * at most two per package, names unique in the workspace.
 */
export function pickSymbols(symbols: TruthSymbol[], count: number): TruthSymbol[] {
  const names = new Map<string, number>();
  for (const symbol of symbols) names.set(symbol.name, (names.get(symbol.name) ?? 0) + 1);
  const outside = (symbol: TruthSymbol): number =>
    new Set(
      [...symbol.references]
        .filter((where) => !where.startsWith(`${symbol.owner}/`))
        .map((where) => where.split(':')[0]),
    ).size;
  const perOwner = new Map<string, number>();
  const picked: TruthSymbol[] = [];
  const ranked = symbols
    .filter((symbol) => names.get(symbol.name) === 1 && outside(symbol) > 0)
    .sort((a, b) => outside(b) - outside(a) || a.name.localeCompare(b.name));
  for (const symbol of ranked) {
    if ((perOwner.get(symbol.owner) ?? 0) >= 2) continue;
    perOwner.set(symbol.owner, (perOwner.get(symbol.owner) ?? 0) + 1);
    picked.push(symbol);
    if (picked.length === count) break;
  }
  return picked;
}
