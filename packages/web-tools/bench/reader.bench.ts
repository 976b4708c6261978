// Reader-corpus benchmark: conversion time per page (median, p95) of htmlToMarkdown against the
// converter as it was before issue 24 (frozen in legacy-html-markdown.ts) and against plain
// turndown + GFM on the whole page, all in the same run, page by page in rotating order; plus the
// word F1 of each against the reader view. The judged figure is the median over pages of the
// per-page time ratio current ÷ legacy (each page's converters run in the same moments, so a busy
// machine slows them alike), with its 90% interval (scripts/lib/bench-interleave.ts). Prints one
// JSON line last.
import { createRequire } from 'node:module';
import TurndownService from 'turndown';
import { judge, printReport } from '../../../scripts/lib/bench-interleave.js';
import { htmlToMarkdown } from '../src/index.js';
import { htmlWords, loadCorpus, markdownWords, quantiles, wordF1 } from '../test/reader-corpus.js';
import { legacyHtmlToMarkdown } from './legacy-html-markdown.js';

type GfmModule = { gfm: TurndownService.Plugin };
const { gfm } = createRequire(import.meta.url)('@joplin/turndown-plugin-gfm') as GfmModule;
const plain = new TurndownService({ codeBlockStyle: 'fenced', headingStyle: 'atx' });
plain.use(gfm);
plain.remove(['script', 'style', 'title']);

const converters = {
  current: (html: string, url: string) => htmlToMarkdown(html, { baseUrl: url }).markdown,
  legacy: (html: string, url: string) => legacyHtmlToMarkdown(html, { baseUrl: url }).markdown,
  turndown: (html: string) => plain.turndown(html),
};
type Name = keyof typeof converters;
const names = Object.keys(converters) as Name[];

const pages = loadCorpus();
const rounds = Number(process.env.READER_BENCH_ROUNDS ?? 3);
const times: Record<Name, number[]> = { current: [], legacy: [], turndown: [] };
const scores: Record<Name, number[]> = { current: [], legacy: [], turndown: [] };
for (const [index, page] of pages.entries()) {
  const expected = htmlWords(page.expected);
  const best: Record<Name, number> = { current: Infinity, legacy: Infinity, turndown: Infinity };
  for (let round = 0; round < rounds; round++) {
    // Rotate the order so that no converter always runs first (cold) or last.
    for (let step = 0; step < names.length; step++) {
      const name = names[(index + round + step) % names.length] as Name;
      const started = performance.now();
      const markdown = converters[name](page.source, page.url);
      best[name] = Math.min(best[name], performance.now() - started);
      if (round === 0) scores[name].push(wordF1(markdownWords(markdown), expected).f1);
    }
  }
  for (const name of names) times[name].push(best[name]);
}

const round3 = (value: number): number => Number(value.toFixed(3));
const figures = Object.fromEntries(
  names.map((name) => {
    const time = quantiles(times[name]);
    const f1 = quantiles(scores[name]);
    return [
      name,
      {
        medianMs: round3(time.median),
        p95Ms: round3(time.p95),
        medianF1: round3(f1.median),
        minF1: round3(Math.min(...scores[name])),
      },
    ];
  }),
);
const perPage = times.current.map((time, page) => time / times.legacy[page]!);
const check = judge('current ÷ legacy per page', perPage, { atMost: 2 });
console.log(`reader corpus: ${pages.length} pages, best of ${rounds} rounds per page`);
for (const name of names) console.log(`${name}: ${JSON.stringify(figures[name])}`);
printReport({
  bench: 'web-tools/reader',
  checks: [check],
  figures: {
    pages: pages.length,
    ...figures,
    medianVsLegacy: round3(quantiles(times.current).median / quantiles(times.legacy).median),
    medianPerPageVsLegacy: check.figure,
    medianPerPageVsLegacy90: check.interval,
    medianVsTurndown: round3(quantiles(times.current).median / quantiles(times.turndown).median),
  },
});
