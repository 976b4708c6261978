import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderDiffHtml } from './diff.js';
import { escapeHtml, inert, inertLine } from './escape.js';
import { foldedPre } from './fold.js';
import { isAllowedHref, renderMarkdownHtml } from './markdown.js';

// The tags the renderers may emit; anything else in the output came from the input.
const ALLOWED_TAGS = new Set(
  'a p br hr em strong del ins code pre blockquote ul ol li h1 h2 h3 h4 h5 h6 table thead tbody tr th td span details summary input'.split(
    ' ',
  ),
);

const RAW_CONTROLS =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/;

/** Hostile text: markup fragments, link schemes, controls and plain characters, mixed. */
const hostile = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '<script>alert(1)</script>',
        '<img src=x onerror=alert(1)>',
        '<svg onload=alert(1)>',
        '[x](javascript:alert(1))',
        '[x](JaVaScRiPt:alert(1))',
        '[x](data:text/html,<script>)',
        '[x](jav&#x61;script:alert(1))',
        '![i](https://example.com/i.png)',
        '<a href="javascript:x">a</a>',
        '"\'><',
        '`code <b>`',
        '```\n<script>\n```',
        '\u001b[31m',
        '\u009b',
        '\u202e',
        '\u200b',
        '\r',
        '\n',
        '&amp;&#60;',
      ),
      fc.string(),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

function tagsOf(html: string): string[] {
  return [...html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9]*)/g)].map((match) =>
    (match[1] as string).toLowerCase(),
  );
}

describe('the HTML renderers treat every field as hostile', () => {
  it('Markdown emits only known tags, allowed links, no handlers and no raw controls', () => {
    fc.assert(
      fc.property(hostile, (source) => {
        const html = renderMarkdownHtml(source);
        for (const tag of tagsOf(html)) expect(ALLOWED_TAGS.has(tag)).toBe(true);
        for (const match of html.matchAll(/href="([^"]*)"/g))
          expect(isAllowedHref((match[1] as string).replace(/&amp;/g, '&'))).toBe(true);
        expect(html).not.toMatch(/<[^>]*\son[a-z]+=/i);
        expect(html).not.toMatch(RAW_CONTROLS);
        // A task list renders a disabled checkbox: nothing else may be an input.
        for (const match of html.matchAll(/<input[^>]*>/g)) expect(match[0]).toContain('disabled');
      }),
      { numRuns: 500 },
    );
  });

  it('plain text, one-line fields, folds and diffs carry no markup and no raw controls', () => {
    fc.assert(
      fc.property(hostile, hostile, (a, b) => {
        for (const html of [
          inert(a),
          inertLine(a),
          foldedPre(a.repeat(50)),
          renderDiffHtml(a, b),
        ]) {
          for (const tag of tagsOf(html))
            expect(['span', 'pre', 'ins', 'del', 'details', 'summary', 'p']).toContain(tag);
          expect(html).not.toMatch(RAW_CONTROLS);
        }
        expect(inertLine(a)).not.toContain('\n');
      }),
      { numRuns: 300 },
    );
  });

  it('keeps http(s), mailto and in-page links and drops every other scheme', () => {
    expect(isAllowedHref('https://example.com/a?b=c')).toBe(true);
    expect(isAllowedHref('mailto:a@example.com')).toBe(true);
    expect(isAllowedHref('#seq-12')).toBe(true);
    for (const href of [
      'javascript:alert(1)',
      ' javascript:x',
      'data:text/html,x',
      'vbscript:x',
      '//example.com',
      'file:///etc/passwd',
    ])
      expect(isAllowedHref(href)).toBe(false);
    const html = renderMarkdownHtml(
      '[a](javascript:alert(1)) [b](https://example.com/) <b>raw</b>',
    );
    expect(html).toContain('<a href="https://example.com/"');
    expect(html).not.toContain('javascript:alert(1)"');
    expect(html).toContain('&lt;b&gt;raw&lt;/b&gt;');
    expect(escapeHtml('<"&\'>')).toBe('&lt;&quot;&amp;&#39;&gt;');
  });
});
