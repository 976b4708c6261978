// Loads the vendored reader-view corpus (test/fixtures/reader-corpus) and scores Markdown against
// the reader view word by word. Shared by the corpus test and bench/reader.bench.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { parseHTML } from 'linkedom';
import { all } from '../src/internal/dom.js';

/** One saved page of the corpus with its reader-view expectation. */
export interface CorpusPage {
  name: string;
  source: string;
  expected: string;
  /** False when the corpus says the page has no article (a reader view would not be offered). */
  readerable: boolean;
  /** The page's origin, used as the base URL (the corpus saves pages from http://fakehost/test/). */
  url: string;
}

const root = new URL('./fixtures/reader-corpus/pages/', import.meta.url);

const gunzip = (path: URL): string => gunzipSync(readFileSync(path)).toString('utf8');

/** Every page of the corpus, sorted by name. */
export function loadCorpus(): CorpusPage[] {
  return readdirSync(root)
    .sort()
    .map((name) => {
      const dir = new URL(`${name}/`, root);
      const metadata = JSON.parse(readFileSync(new URL('expected-metadata.json', dir), 'utf8')) as {
        readerable?: boolean;
      };
      return {
        name,
        source: gunzip(new URL('source.html.gz', dir)),
        expected: gunzip(new URL('expected.html.gz', dir)),
        readerable: metadata.readerable !== false,
        url: 'http://fakehost/test/page.html',
      };
    });
}

/** Lower-cased words (letters and digits) of a text. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The words a reader sees in Markdown: link targets, images, fence info and HTML tags left out. */
export function markdownWords(markdown: string): string[] {
  const words: string[] = [];
  // Code (fenced blocks, inline spans) is taken verbatim: `<script>` there is text, not a tag.
  const parts = markdown.split(/^(`{3,}|~{3,})[^\n]*\n([\s\S]*?)^\1[ \t]*$/m);
  for (let index = 0; index < parts.length; index += 3) {
    const prose = parts[index] ?? '';
    for (const [position, piece] of prose.split(/(`+)([^`]*?)\1/).entries()) {
      if (position % 3 === 2) words.push(...wordsOf(piece));
      else if (position % 3 === 0) {
        const text = piece
          .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
          .replace(/\]\((?:[^()\s]|\([^()]*\))*(?:\s+"[^"]*")?\)/g, '] ')
          .replace(/<[^>]+>/g, ' ')
          .replace(/&(?:amp|lt|gt|quot|#\d+);/g, ' ');
        words.push(...wordsOf(text));
      }
    }
    if (index + 2 < parts.length) words.push(...wordsOf(parts[index + 2] ?? ''));
  }
  return words;
}

/** The words of the text nodes under a node, each text node on its own (no `a</p><p>b` → `ab`). */
export function nodeWords(root: { ownerDocument?: unknown } & object): string[] {
  const document = ((root as { ownerDocument?: unknown }).ownerDocument ?? root) as {
    createTreeWalker(root: unknown, show: number): { nextNode(): { textContent: string } | null };
  };
  const walker = document.createTreeWalker(root, 4);
  const words: string[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    words.push(...wordsOf(node.textContent ?? ''));
  }
  return words;
}

const BLOCK_TAG =
  /<(?=\/?(?:p|div|br|li|h[1-6]|tr|td|th|pre|blockquote|section|article|ul|ol|dl|dd|dt|table|figure|figcaption|header|footer|aside|nav|main|hr)\b)/gi;

/** The words of an HTML fragment's text, blocks apart, inline elements joined as rendered. */
export function htmlWords(html: string): string[] {
  const spaced = html.replace(BLOCK_TAG, ' <');
  const { document } = parseHTML(`<!doctype html><html><body>${spaced}</body></html>`);
  for (const element of all(document, 'script, style')) element.remove();
  return wordsOf(document.body.textContent ?? '');
}

/** Word-level F1 of two bags of words (multiset overlap). */
export function wordF1(
  actual: string[],
  expected: string[],
): { f1: number; precision: number; recall: number } {
  const counts = new Map<string, number>();
  for (const word of expected) counts.set(word, (counts.get(word) ?? 0) + 1);
  let overlap = 0;
  for (const word of actual) {
    const left = counts.get(word) ?? 0;
    if (left > 0) {
      overlap++;
      counts.set(word, left - 1);
    }
  }
  if (actual.length === 0 && expected.length === 0) return { f1: 1, precision: 1, recall: 1 };
  const precision = actual.length ? overlap / actual.length : 0;
  const recall = expected.length ? overlap / expected.length : 0;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  return { f1, precision, recall };
}

/** Median and 95th percentile of a list of numbers. */
export function quantiles(values: number[]): { median: number; p95: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { median: at(0.5), p95: at(0.95) };
}
