// The reader corpus: 130 real saved pages (news, blogs, wikis, documentation, forums) from
// Mozilla Readability's test suite, each with the reader view as the expected main content.
import { parseHTML } from 'linkedom';
import { beforeAll, describe, expect, it } from 'vitest';
import { type HtmlToMarkdownResult, htmlToMarkdown } from '../src/index.js';
import { all } from '../src/internal/dom.js';
import {
  type CorpusPage,
  htmlWords,
  loadCorpus,
  markdownWords,
  nodeWords,
  quantiles,
  wordF1,
  wordsOf,
} from './reader-corpus.js';

interface Converted {
  page: CorpusPage;
  result: HtmlToMarkdownResult;
  f1: number;
  words: Set<string>;
}

let converted: Converted[] = [];

beforeAll(() => {
  converted = loadCorpus().map((page) => {
    const result = htmlToMarkdown(page.source, { baseUrl: page.url });
    const words = markdownWords(result.markdown);
    return {
      page,
      result,
      f1: wordF1(words, htmlWords(page.expected)).f1,
      words: new Set(words),
    };
  });
}, 600_000);

/**
 * Words that occur on a page only inside elements hidden in the most explicit ways (inline
 * `display:none`/`visibility:hidden`, `hidden`, `aria-hidden="true"`), found independently of the
 * converter: none of them may reach the output.
 */
function hiddenOnlyWords(source: string): Set<string> {
  const { document } = parseHTML(source);
  for (const element of all(document, 'script, style, noscript, template')) element.remove();
  const hidden = all(
    document,
    '[hidden], [aria-hidden="true" i], [style*="display:none" i], [style*="display: none" i], [style*="visibility:hidden" i], [style*="visibility: hidden" i]',
  );
  const hiddenWords = new Set<string>();
  for (const element of hidden) {
    for (const word of nodeWords(element)) hiddenWords.add(word);
    for (const attribute of ['alttext', 'alt']) {
      for (const inner of all(element, `[${attribute}]`)) {
        for (const word of wordsOf(inner.getAttribute(attribute) ?? '')) hiddenWords.add(word);
      }
    }
  }
  for (const element of hidden) element.remove();
  const visible = new Set(nodeWords(document.documentElement as object));
  for (const image of all(document, '[alt], [title], [aria-label]')) {
    for (const name of ['alt', 'title', 'aria-label']) {
      for (const word of wordsOf(image.getAttribute(name) ?? '')) visible.add(word);
    }
  }
  return new Set([...hiddenWords].filter((word) => word.length >= 3 && !visible.has(word)));
}

describe('htmlToMarkdown on the reader corpus (130 real pages)', () => {
  it('holds at least 100 pages, each with its reader-view expectation', {
    timeout: 300_000,
  }, () => {
    expect(converted.length).toBeGreaterThanOrEqual(100);
    for (const { page } of converted) expect(page.expected.length).toBeGreaterThan(0);
  });

  it('matches the reader view word for word: median F1 ≥ 0.99, no article page below 0.8', {
    timeout: 300_000,
  }, () => {
    const { median } = quantiles(converted.map((entry) => entry.f1));
    expect(median).toBeGreaterThanOrEqual(0.99);
    const low = converted
      .filter((entry) => entry.page.readerable && entry.f1 < 0.8)
      .map((entry) => `${entry.page.name}: ${entry.f1.toFixed(3)}`);
    expect(low).toEqual([]);
  });

  it('lets no hidden word through on any page, and reports what it removed', {
    timeout: 300_000,
  }, () => {
    const leaks: string[] = [];
    let pagesWithHidden = 0;
    for (const { page, words, result } of converted) {
      const hidden = hiddenOnlyWords(page.source);
      if (hidden.size > 0) {
        pagesWithHidden++;
        expect(result.hidden.elements, page.name).toBeGreaterThan(0);
      }
      for (const word of hidden) if (words.has(word)) leaks.push(`${page.name}: ${word}`);
    }
    expect(pagesWithHidden).toBeGreaterThan(20);
    expect(leaks).toEqual([]);
  });

  it('fences every code block of the reader view, with the language where the page declares one', {
    timeout: 300_000,
  }, () => {
    const unfenced: string[] = [];
    const unlabelled: string[] = [];
    let blocks = 0;
    for (const { page, result } of converted) {
      const pres = (page.expected.match(/<pre[\s>]/g) ?? []).length;
      const fences = result.markdown.match(/^(?:> ?)*```+[^\n`]*$/gm) ?? [];
      blocks += pres;
      if (fences.length / 2 < pres) unfenced.push(`${page.name}: ${fences.length / 2} of ${pres}`);
      const declares =
        /<(?:pre|code)\b[^>]*class="[^"]*\b(?:language-|lang-|brush:|highlight-)/i.test(
          page.source,
        ) && pres > 0;
      if (declares && !fences.some((fence) => /```+\w/.test(fence))) unlabelled.push(page.name);
    }
    expect(blocks).toBeGreaterThan(20);
    expect(unfenced).toEqual([]);
    expect(unlabelled).toEqual([]);
  });

  it('renders at least 90% of the data tables of the reader view as GFM tables', {
    timeout: 300_000,
  }, () => {
    let dataTables = 0;
    let gfmTables = 0;
    let rawTables = 0;
    for (const { page, result } of converted) {
      const { document } = parseHTML(`<html><body>${page.expected}</body></html>`);
      dataTables += all(document, 'table').filter(
        (table) => table.querySelector('th') && !table.querySelector('table'),
      ).length;
      gfmTables += (result.markdown.match(/^(?:> ?)*\|(?: --- \|)+$/gm) ?? []).length;
      rawTables += (result.markdown.match(/<table[\s>]/g) ?? []).length;
    }
    expect(dataTables).toBeGreaterThan(5);
    expect(gfmTables).toBeGreaterThanOrEqual(dataTables * 0.9);
    expect(rawTables).toBeLessThanOrEqual(gfmTables * 0.1);
  });

  it('keeps only http(s) links, all absolute', { timeout: 300_000 }, () => {
    for (const { result } of converted) {
      for (const match of result.markdown.matchAll(/\]\(([^)\s]+)/g)) {
        expect(match[1]).toMatch(/^https?:\/\//);
      }
    }
  });
});
