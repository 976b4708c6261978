// Structure the model must get intact: code blocks with their language, tables as GFM with
// flattened cells, only http(s) links; and the two extreme pages: 5 MB, and one giant table.
import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../src/index.js';

const PROSE = Array.from(
  { length: 5 },
  (_, index) =>
    `<p>Paragraph ${index + 1} of the article gives enough ordinary prose for a reader view to pick it, with several sentences of plain words.</p>`,
).join('');

function article(inner: string): string {
  return `<!doctype html><html><head><title>T</title></head><body><nav><a href="/">Home</a></nav><article><h1>Title</h1>${PROSE}${inner}${PROSE}</article></body></html>`;
}

describe('code blocks keep their language', () => {
  it.each([
    ['a bare language class on pre', '<pre class="javascript">let a = 1;</pre>', 'javascript'],
    ['language- on code', '<pre><code class="language-ts">let a = 1;</code></pre>', 'ts'],
    ['lang- on pre', '<pre class="lang-py prettyprint">a = 1</pre>', 'py'],
    ['brush: (SyntaxHighlighter)', '<pre class="brush: php; gutter: false">$a = 1;</pre>', 'php'],
    ['data-lang on pre', '<pre data-lang="go">a := 1</pre>', 'go'],
    [
      'a highlight-<lang> wrapper two levels up (Sphinx)',
      '<div class="highlight-python notranslate"><div class="highlight"><pre><span class="n">a</span> = 1</pre></div></div>',
      'python',
    ],
    [
      'a highlight-source-<lang> wrapper (GitHub)',
      '<div class="highlight highlight-source-rust"><pre>let a = 1;</pre></div>',
      'rust',
    ],
    ['a data-lang wrapper', '<div data-lang="ruby"><pre>a = 1</pre></div>', 'ruby'],
  ])('reads %s', (_name, html, language) => {
    const { markdown } = htmlToMarkdown(article(html));
    expect(markdown).toMatch(new RegExp(`\`\`\`${language}\\n[^\\n]*1;?\\n\`\`\``));
  });

  it('keeps line breaks, drops highlighter markup, and fences code that contains fences', () => {
    const { markdown } = htmlToMarkdown(
      article(
        '<pre><code><span class="k">if</span> (a)<br>  run();\n```\nnot a fence\n```</code></pre><pre class="notranslate">plain block</pre>',
      ),
    );
    expect(markdown).toContain('````\nif (a)\n  run();\n```\nnot a fence\n```\n````');
    expect(markdown).toContain('```\nplain block\n```');
  });
});

describe('tables', () => {
  it('renders a data table as GFM with cell content flattened to inline Markdown', () => {
    const { markdown, tables } = htmlToMarkdown(
      article(
        '<table><caption>Options</caption><thead><tr><th>Name</th><th>Notes</th><th>Example</th></tr></thead><tbody>' +
          '<tr><td><code>mode</code></td><td><ul><li>fast</li><li>safe | slow</li></ul></td><td><pre>a\nb</pre></td></tr>' +
          '<tr><td colspan="2">first line<br>second <strong>line</strong></td><td><p>One.</p><p>Two.</p></td></tr>' +
          '</tbody></table>',
      ),
    );
    expect(tables).toEqual({ gfm: 1, layout: 0, raw: 0 });
    expect(markdown).toContain(
      [
        'Options',
        '',
        '| Name | Notes | Example |',
        '| --- | --- | --- |',
        '| `mode` | fast; safe \\| slow | `a b` |',
        '| first line<br>second **line** |  | One.<br>Two. |',
      ].join('\n'),
    );
  });

  it('gives a header-less data table an empty header row and unwraps layout tables', () => {
    const { markdown, tables } = htmlToMarkdown(
      article(
        '<table><tr><td>a1</td><td>b1</td></tr><tr><td>a2</td><td>b2</td></tr></table>' +
          '<table><tr><td><p>Layout column one holds a paragraph.</p></td></tr><tr><td><p>And another one.</p></td></tr></table>' +
          '<table role="presentation"><tr><td><p>Left box.</p></td><td><p>Right box.</p></td></tr><tr><td>x</td><td>y</td></tr></table>',
      ),
    );
    expect(markdown).toContain('|  |  |\n| --- | --- |\n| a1 | b1 |\n| a2 | b2 |');
    expect(markdown).toContain('Layout column one holds a paragraph.\n\nAnd another one.');
    expect(markdown).toContain('Left box.\n\nRight box.');
    expect(tables).toEqual({ gfm: 1, layout: 2, raw: 0 });
  });

  it('keeps a grid of tables as raw HTML, the last resort, and says so', () => {
    const inner = '<table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2</td></tr></table>';
    const rows = Array.from(
      { length: 3 },
      (_, index) => `<tr><td>row ${index}</td><td>${inner}</td></tr>`,
    ).join('');
    const { markdown, tables } = htmlToMarkdown(
      article(`<table><tr><th>Name</th><th>Data</th></tr>${rows}</table>`),
    );
    expect(tables).toEqual({ gfm: 0, layout: 0, raw: 1 });
    expect(markdown).toContain(
      '<table><tr><th>Name</th><th>Data</th></tr><tr><td>row 0</td><td><table><tr><th>k</th>',
    );
  });
});

describe('links', () => {
  it('keeps http(s) and relative links (made absolute) and drops every other scheme', () => {
    const { markdown } = htmlToMarkdown(
      article(
        '<p><a href="/docs">Docs</a> <a href="//cdn.example.org/x">CDN</a> <a href="http://old.example.org/">Old</a> ' +
          '<a href="file:///etc/passwd">File</a> <a href="about:blank">About</a> <a href="javascript:alert(1)">Script</a> ' +
          '<a href="data:text/html,x">Data</a> <a href="ftp://example.org/">Ftp</a> <img src="file:///x.png" alt="local"></p>',
      ),
      { baseUrl: 'https://site.example/a/page' },
    );
    expect(markdown).toContain('[Docs](https://site.example/docs)');
    expect(markdown).toContain('[CDN](https://cdn.example.org/x)');
    expect(markdown).toContain('[Old](http://old.example.org/)');
    expect(markdown).toContain('File About Script Data Ftp');
    expect(markdown).not.toMatch(/file:|about:|javascript:|data:|ftp:/);
  });
});

describe('extreme pages', () => {
  it('converts a 5 MB page to the end', { timeout: 300_000 }, () => {
    const parts = ['<!doctype html><html><head><title>Big</title></head><body>'];
    parts.push(`<nav>${'<a href="/m">Menu</a>'.repeat(500)}</nav><article><h1>Long report</h1>`);
    let size = 0;
    for (let index = 0; size < 5 * 1024 * 1024; index++) {
      const block =
        (index % 50 === 0 ? `<h2>Section ${index / 50}</h2>` : '') +
        `<p>Paragraph ${index} of the long report explains its findings in plain words, with <a href="/r/${index}">a reference</a>.</p>`;
      parts.push(block);
      size += block.length;
    }
    parts.push('<p>THE-END-MARKER closes the report.</p></article></body></html>');
    const html = parts.join('');
    expect(html.length).toBeGreaterThan(5 * 1024 * 1024);
    const { markdown } = htmlToMarkdown(html, { baseUrl: 'https://example.org/report' });
    expect(markdown.startsWith('# Long report')).toBe(true);
    expect(markdown).toContain('[a reference](https://example.org/r/1)');
    expect(markdown.trimEnd().endsWith('THE-END-MARKER closes the report.')).toBe(true);
    expect(markdown).not.toContain('Menu');
  });

  it('converts a page that is one giant table to one GFM table with every row', {
    timeout: 300_000,
  }, () => {
    const rows = Array.from(
      { length: 20_000 },
      (_, index) =>
        `<tr><td>${index}</td><td>name ${index}</td><td><ul><li>a${index}</li><li>b${index}</li></ul></td></tr>`,
    ).join('');
    const html = `<!doctype html><html><body><table><thead><tr><th>id</th><th>name</th><th>tags</th></tr></thead><tbody>${rows}</tbody></table></body></html>`;
    const { markdown, tables } = htmlToMarkdown(html);
    expect(tables).toEqual({ gfm: 1, layout: 0, raw: 0 });
    const lines = markdown.split('\n');
    expect(lines[0]).toBe('| id | name | tags |');
    expect(lines[1]).toBe('| --- | --- | --- |');
    expect(lines).toHaveLength(20_002);
    expect(lines.at(-1)).toBe('| 19999 | name 19999 | a19999; b19999 |');
  });
});
