// Realistic session content for the benchmarks: source code, tool output, JSON and Unicode prose,
// with the newlines, quotes, backslashes and non-ASCII characters real messages carry.
// Deterministic (a fixed-seed generator), so runs compare like with like.

let state = 0x9e3779b9;
/** A deterministic pseudo-random integer in `0..n-1`. */
export function rand(n: number): number {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) % n;
}

const pick = <T>(items: readonly T[]): T => items[rand(items.length)] as T;

const identifiers = ['session', 'event', 'surface', 'config', 'result', 'buffer', 'index', 'path'];
const prose = [
  'The build fails because the test fixture path changed.',
  'Les tests échouent après la migration ; vérifiez le schéma.',
  'Die Änderung betrifft nur die Übersetzungsdateien.',
  'この関数は空の配列を返します。',
  'Fixed the “off-by-one” in the pager — see line 42 ✅',
  'Поправил обработку ошибок в загрузчике.',
  'Emoji in commit messages 🚀🔥 are rendered as-is.',
];

function code(lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const name = pick(identifiers);
    switch (rand(5)) {
      case 0:
        out.push(`export function ${name}Of(input: string): string {`);
        break;
      case 1:
        out.push(`  const ${name} = JSON.parse(text.replace(/\\\\n/g, "\\n"));`);
        break;
      case 2:
        out.push(`  if (!${name}) throw new Error(\`missing ${name}: "\${path}"\`);`);
        break;
      case 3:
        out.push(`  // ${pick(prose)}`);
        break;
      default:
        out.push(`  return { ${name}, size: ${name}.length * ${rand(1000)} };\n}`);
    }
  }
  return out.join('\n');
}

function toolOutput(lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    switch (rand(4)) {
      case 0:
        out.push(
          `src/${pick(identifiers)}/${pick(identifiers)}.ts:${rand(400)}:${rand(80)}: ${pick(prose)}`,
        );
        break;
      case 1:
        out.push(`  ✓ ${pick(identifiers)} handles "${pick(identifiers)}" (${rand(900)} ms)`);
        break;
      case 2:
        out.push(`drwxr-xr-x  2 root root  4096 Dec  1 15:${10 + rand(49)} ${pick(identifiers)}`);
        break;
      default:
        out.push(`\tat ${pick(identifiers)} (C:\\\\work\\\\${pick(identifiers)}.js:${rand(99)})`);
    }
  }
  return out.join('\n');
}

function json(): string {
  return JSON.stringify(
    {
      path: `src/${pick(identifiers)}.ts`,
      line: rand(500),
      text: pick(prose),
      tags: [pick(identifiers)],
    },
    null,
    2,
  );
}

/** A user message (a question, sometimes with pasted code). */
export function userText(): string {
  return rand(3) === 0 ? `${pick(prose)}\n\n\`\`\`ts\n${code(6 + rand(10))}\n\`\`\`` : pick(prose);
}

/** An assistant's text answer: prose, code and JSON. */
export function assistantText(): string {
  return `${pick(prose)}\n\n\`\`\`ts\n${code(8 + rand(30))}\n\`\`\`\n${rand(2) ? json() : pick(prose)}`;
}

/** A tool's output: compiler errors, test runs, listings, stack traces, file contents. */
export function toolText(): string {
  return rand(3) === 0 ? code(20 + rand(70)) : toolOutput(24 + rand(90));
}

/** Tool call arguments as the model sends them (a JSON string). */
export function toolArguments(): string {
  return JSON.stringify({
    path: `src/${pick(identifiers)}.ts`,
    pattern: `"${pick(identifiers)}"\\s+`,
  });
}
