import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../src/index.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

describe('htmlToMarkdown on real-world-shaped pages', () => {
  it('keeps a documentation page readable: headings, links, code, tables, lists', () => {
    const { title, markdown } = htmlToMarkdown(fixture('docs-page.html'), {
      baseUrl: 'https://docs.widget.example/docs/client/configure',
    });
    expect(title).toBe('Configuring the Widget Client | Widget Docs');
    expect(markdown.startsWith('# Configuring the Widget Client')).toBe(true);
    expect(markdown).toContain(
      'See the [installation guide](https://docs.widget.example/docs/install "Install guide") first & then come back.',
    );
    expect(markdown).toMatch(
      /\| Name \| Type \| Default \|\n\| --- \| --- \| --- \|\n\| `timeout` \| number \| 30 *\|/,
    );
    expect(markdown).toContain('| `mode` | "fast" \\| "safe" | "safe" |');
    expect(markdown).toContain(
      "```ts\nimport { createClient } from 'widget';\n\nconst client = createClient({ timeout: 10 });",
    );
    expect(markdown).toContain('```shell\nnpm install widget@2\n```');
    expect(markdown).toMatch(/-\s+First step\n\s+-\s+Nested detail/);
    expect(markdown).toContain('**Note:** values in _milliseconds_ were removed in v2.');
    for (const chrome of [
      'Skip to content',
      'Pricing',
      'Search docs',
      'We use cookies',
      'Privacy',
      'dataLayer',
      'sidebar',
      'Install](',
    ]) {
      expect(markdown).not.toContain(chrome);
    }
  });

  it('extracts a news article and drops banners, share buttons, related links and comments', () => {
    const { title, markdown } = htmlToMarkdown(fixture('news-article.html'), {
      baseUrl: 'https://news.example/local/bike-lanes',
    });
    expect(title).toBe('City council approves new bike lanes – The Daily Example');
    expect(markdown).toContain('# City council approves new bike lanes');
    expect(markdown).toContain('The city council voted 7–2 on Tuesday');
    expect(markdown).toContain('[spring 2027](https://news.example/local/2027-budget)');
    expect(markdown).toContain('> We expect cycling trips to double within three years.');
    expect(markdown).toContain('![A painted bike lane](https://cdn.example.org/img/lanes.jpg)');
    expect(markdown).toContain('Opponents cited parking losses');
    for (const chrome of [
      'Subscribe now',
      'morning briefing',
      'Share',
      'Bus fares',
      'First!',
      'Comments (214)',
      'Local](',
    ]) {
      expect(markdown).not.toContain(chrome);
    }
  });

  it('finds the densest block on a page without main or article, inside a page-wide form', () => {
    const { title, markdown } = htmlToMarkdown(fixture('div-soup.html'), {
      baseUrl: 'https://forum.example/thread.aspx?id=42',
    });
    expect(title).toBe('Old forum thread: fixing error 0x80070005');
    expect(markdown).toContain('I get error 0x80070005 (access denied)');
    expect(markdown).toContain(
      '```\nicacls "C:\\Program Files\\Updater" /grant "NT SERVICE\\Updater":(OI)(CI)M\n```',
    );
    expect(markdown).not.toContain('Powered by OldForum');
    expect(markdown).not.toContain('Log in');
  });

  it('handles fragments, missing titles and dangerous links', () => {
    const { title, markdown } = htmlToMarkdown(
      '<p>Go <a href="javascript:alert(1)">here</a> or <a href="/x">there</a>.</p><img src="data:image/png;base64,AAAA" alt="pixel">',
      { baseUrl: 'https://site.example/a/' },
    );
    expect(title).toBeUndefined();
    expect(markdown).toBe('Go here or [there](https://site.example/x).');
  });

  it('honours <base href> for relative links', () => {
    const { markdown } = htmlToMarkdown(
      '<html><head><base href="https://cdn.example/v2/"></head><body><p><a href="guide.html">Guide</a></p></body></html>',
      { baseUrl: 'https://site.example/' },
    );
    expect(markdown).toBe('[Guide](https://cdn.example/v2/guide.html)');
  });
});
