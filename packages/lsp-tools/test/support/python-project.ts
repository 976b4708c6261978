// A generated Python project of `count` modules in a package, with cross-module imports,
// classes, methods and calls, and a ground truth of every reference by Python's own `ast`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes the project under `root` (package `app`, plus `pyproject.toml`). */
export function writePythonProject(root: string, count: number): void {
  const app = join(root, 'app');
  mkdirSync(app, { recursive: true });
  writeFileSync(join(root, 'pyproject.toml'), '[project]\nname = "generated"\nversion = "0.1.0"\n');
  writeFileSync(join(app, '__init__.py'), '');
  const pad = (index: number): string => String(index).padStart(2, '0');
  for (let index = 0; index < count; index += 1) {
    const name = pad(index);
    const lines: string[] = [];
    // Each module imports the two before it (a chain with a skip), so names travel far.
    const deps = [index - 1, index - 2].filter((each) => each >= 0).map(pad);
    for (const dep of deps) lines.push(`from app.mod_${dep} import func_${dep}, Widget${dep}`);
    if (index % 5 === 0 && index > 0) lines.push('from app import mod_00');
    lines.push('', '');
    lines.push(`def func_${name}(value: int) -> int:`);
    lines.push(
      deps.length > 0
        ? `    return ${deps.map((dep) => `func_${dep}(value)`).join(' + ')} + ${index}`
        : `    return value + ${index}`,
    );
    lines.push('', '');
    lines.push(`class Widget${name}:`);
    lines.push('    def __init__(self, size: int) -> None:', '        self.size = size', '');
    lines.push(`    def grow_${name}(self) -> int:`);
    lines.push(`        return func_${name}(self.size)`);
    for (const dep of deps) {
      lines.push('', `    def borrow_${dep}(self) -> int:`);
      lines.push(`        return Widget${dep}(self.size).grow_${dep}()`);
    }
    if (index % 5 === 0 && index > 0) {
      lines.push('', '', 'def use_root() -> int:', '    return mod_00.func_00(3)');
    }
    writeFileSync(join(app, `mod_${name}.py`), `${lines.join('\n')}\n`);
  }
}

const AST_WALK = `
import ast, json, pathlib, sys
root = pathlib.Path(sys.argv[1])
names = sys.argv[2:]
found = {name: [] for name in names}
for path in sorted(root.rglob('*.py')):
    rel = path.relative_to(root).as_posix()
    source = path.read_text()
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source)):
        def add(name, line, col):
            if name in found:
                found[name].append(f"{rel}:{line}:{col + 1}")
        if isinstance(node, ast.Name):
            add(node.id, node.lineno, node.col_offset)
        elif isinstance(node, ast.Attribute):
            add(node.attr, node.end_lineno, node.end_col_offset - len(node.attr))
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            text = lines[node.lineno - 1]
            add(node.name, node.lineno, text.index(node.name, node.col_offset))
        elif isinstance(node, ast.alias) and node.name in found:
            add(node.name, node.lineno, node.col_offset)
print(json.dumps(found))
`;

/** Every reference (declaration included) to each name, by `ast`, as `path:line:col`. */
export function pythonReferences(root: string, names: string[]): Record<string, string[]> {
  const output = execFileSync('python3', ['-c', AST_WALK, root, ...names], { encoding: 'utf8' });
  return JSON.parse(output) as Record<string, string[]>;
}
