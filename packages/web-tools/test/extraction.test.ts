// Main-content extraction: what the issue found broken in the old heuristics, checked on the
// real pages where it happened and on small pages built to isolate each behaviour.
import { describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '../src/index.js';
import { htmlWords, loadCorpus, markdownWords, wordF1 } from './reader-corpus.js';

const sentence = (topic: string, index: number): string =>
  `<p>${topic} paragraph ${index} carries several sentences of ordinary prose, so that a reader would stop and read it through to the end.</p>`;
const paragraphs = (topic: string, count: number): string =>
  Array.from({ length: count }, (_, index) => sentence(topic, index + 1)).join('');

describe('main-content extraction', () => {
  it('keeps the article of the real pages the old class filter emptied', {
    timeout: 300_000,
  }, () => {
    const pages = loadCorpus().filter((page) => ['videos-1', 'bug-1255978'].includes(page.name));
    expect(pages).toHaveLength(2);
    for (const page of pages) {
      const { markdown } = htmlToMarkdown(page.source, { baseUrl: page.url });
      const { f1 } = wordF1(markdownWords(markdown), htmlWords(page.expected));
      expect(f1, page.name).toBeGreaterThan(0.95);
    }
  });

  it('does not trust <main> blindly: teasers and related stories inside it are left out', () => {
    const teasers = Array.from(
      { length: 12 },
      (_, index) =>
        `<li><a href="/story/${index}">Teaser headline number ${index} about something else</a></li>`,
    ).join('');
    const { markdown } = htmlToMarkdown(
      `<html><body><main><div class="player-menu"><ul>${teasers}</ul></div><article><h1>The story</h1>${paragraphs('Story', 8)}</article><section class="more-stories"><h2>More</h2><ul>${teasers}</ul></section></main></body></html>`,
      { baseUrl: 'https://news.example/story' },
    );
    expect(markdown).toContain('# The story');
    expect(markdown).toContain('Story paragraph 8 carries');
    expect(markdown).not.toContain('Teaser headline');
  });

  it('never lets a class name delete the block that holds the headline and most of the text', () => {
    const result = htmlToMarkdown(
      `<html><body><div class="l-sidebar-fixed"><h1>Wrapped article</h1>${paragraphs('Article', 12)}</div><div class="content">${paragraphs('Side', 3)}</div></body></html>`,
    );
    expect(result.extractor).toBe('readability-keep-unlikely');
    expect(result.markdown).toContain('# Wrapped article');
    expect(result.markdown).toContain('Article paragraph 12 carries');
  });

  it('converts a page without an article whole', () => {
    const result = htmlToMarkdown('<p>Just one line.</p>');
    expect(result.markdown).toBe('Just one line.');
  });
});
