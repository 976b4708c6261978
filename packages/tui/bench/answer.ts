// The long Markdown answer the streaming benchmarks render: every block kind, including
// 200-line code fences, repeated up to a size.

const BLOCKS = [
  '## Section {i}\n',
  'A paragraph {i} with *emphasis*, **strong**, ~~old~~, `code` and a [link](https://example.com/{i}) that runs long enough to wrap at a hundred columns in the terminal, twice over if it can.\n',
  '- item {i}\n- [x] done {i}\n  1. nested {i}\n  2. again {i}\n',
  '| col | 説明 | n |\n|---|:-:|--:|\n| {i} | 漢字 👍🏽 e\u0301 | 42 |\n| more | text | 7 |\n',
  '```ts\nconst value{i} = {i};\nfunction f{i}() {\n  return value{i};\n}\n```\n',
  '> quoted {i} with **bold**\n> and a second line\n',
  `\`\`\`text\n${'a long log line {i} that goes on\n'.repeat(200)}\`\`\`\n`,
];

/** A Markdown answer of about `bytes` bytes. */
export function answer(bytes: number): string {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const block = (BLOCKS[i % BLOCKS.length] as string).replaceAll('{i}', String(i));
    out.push(block);
    size += block.length + 1;
  }
  return out.join('\n');
}
