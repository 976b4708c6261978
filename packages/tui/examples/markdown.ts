// @spine/tui Markdown: an answer rendered for this terminal, streamed block by block as its chunks
// arrive. Run: npx tsx packages/tui/examples/markdown.ts (NO_COLOR=1 or a pipe: plain text)
import { createMarkdownStream, styleFor } from '@spine/tui';

const answer = [
  '## Plan\n\nRun the **tests**, then fix `parse()` — see [the guide](https://example.com/guide).\n\n',
  '- [x] read the code\n- [ ] write the fix\n\n| file | 状態 |\n|---|---|\n| parse.ts | 👍 |\n\n',
  '```ts\nexport const ok = true;\n```\n',
];
const markdown = createMarkdownStream({
  width: process.stdout.columns || 80,
  style: styleFor(process.stdout),
  hyperlinks: true,
});
for (const chunk of answer) {
  for (const line of markdown.push(chunk)) process.stdout.write(`${line}\n`);
}
for (const line of markdown.end()) process.stdout.write(`${line}\n`);
