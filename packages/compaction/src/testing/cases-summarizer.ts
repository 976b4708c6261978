// Summarizer conformance: a usable summary, an untouched input, honest usage, and aborts.
import type { Message, SummarizationInput, SummarizationResult, Summarizer } from '@spine/protocol';
import { words } from './history.js';
import { type ConformanceCase, describeError, ensure, show, works } from './kit.js';

/** What the Summarizer cases get: a factory for fresh summarisers. */
export interface SummarizerFixture {
  /** A fresh summariser, ready to answer (for a model-backed one: its model reachable). */
  summarizer: () => Summarizer | Promise<Summarizer>;
}

/** A region as a compaction engine hands it over: a request, tool calls, results, an error. */
export function sampleInput(): SummarizationInput {
  const messages: Message[] = [
    { role: 'user', content: 'Fix the failing build in src/parser.ts.', source: 'user' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Running the tests first.' },
        { type: 'tool-call', id: 'k1', name: 'bash', arguments: '{"command":"npm test"}' },
      ],
    },
    {
      role: 'tool',
      toolCallId: 'k1',
      toolName: 'bash',
      content: `FAIL src/parser.test.ts\nTypeError: cannot read properties of undefined\n${words(80, 3)}`,
      isError: true,
    },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', id: 'k2', name: 'read_file', arguments: '{"path":"src/parser.ts"}' },
      ],
    },
    {
      role: 'tool',
      toolCallId: 'k2',
      toolName: 'read_file',
      content: words(120, 4),
      isError: false,
    },
  ];
  return {
    system: 'You are a coding agent.',
    tools: [{ name: 'bash', description: 'Runs a command.', parameters: { type: 'object' } }],
    messages,
  };
}

function checkResult(result: SummarizationResult, what: string): void {
  ensure(
    typeof result === 'object' && result !== null,
    `${what}: expected { summary }, got ${show(result)}`,
  );
  ensure(
    typeof result.summary === 'string' && result.summary.trim().length > 0,
    `${what}: expected a non-empty summary string, got ${show(result.summary)}`,
  );
}

/** The Summarizer cases, in a stable order. */
export const summarizerCases: readonly ConformanceCase<SummarizerFixture>[] = [
  {
    name: 'declares specificationVersion 1',
    async run(fixture) {
      const summarizer = await fixture.summarizer();
      ensure(
        summarizer.specificationVersion === 1,
        `summarizer.specificationVersion: expected 1, got ${show(summarizer.specificationVersion)}`,
      );
    },
  },
  {
    name: 'summarises a region of requests, tool calls and results into non-empty text',
    async run(fixture) {
      const summarizer = await fixture.summarizer();
      const result = await works(() => summarizer.summarize(sampleInput()), 'summarize()');
      checkResult(result, 'summarize()');
    },
  },
  {
    name: 'summarises with a focus, and leaves its input as it was',
    async run(fixture) {
      const summarizer = await fixture.summarizer();
      const input = { ...sampleInput(), focus: 'the parser error' };
      const before = JSON.stringify(input);
      const result = await works(() => summarizer.summarize(input), 'summarize({ focus })');
      checkResult(result, 'summarize({ focus })');
      ensure(
        JSON.stringify(input) === before,
        'summarize(): the input was changed (a summariser must not mutate the region it is given)',
      );
    },
  },
  {
    name: 'reports usage, when it does, as non-negative integer token counts',
    async run(fixture) {
      const summarizer = await fixture.summarizer();
      const { usage } = await works(() => summarizer.summarize(sampleInput()), 'summarize()');
      if (usage === undefined) return;
      for (const [key, value] of Object.entries(usage)) {
        if (!key.endsWith('Tokens')) continue;
        ensure(
          value === undefined || (Number.isInteger(value) && (value as number) >= 0),
          `summarize().usage.${key}: expected a non-negative integer, got ${show(value)}`,
        );
      }
    },
  },
  {
    name: 'rejects when its signal is already aborted',
    async run(fixture) {
      const summarizer = await fixture.summarizer();
      const signal = AbortSignal.abort(new Error('kit abort'));
      let outcome: string;
      try {
        const result = await summarizer.summarize(sampleInput(), { signal });
        outcome = `it resolved with ${show(result)}`;
      } catch {
        return;
      }
      ensure(false, `summarize() with an aborted signal: expected a rejection, but ${outcome}`);
    },
  },
  {
    name: 'stops and rejects when its signal aborts during the call',
    async run(fixture) {
      const summarizer = await fixture.summarizer();
      const controller = new AbortController();
      let abortedAt: number | undefined;
      const timer = setTimeout(() => {
        abortedAt = Date.now();
        controller.abort(new Error('kit abort'));
      }, 30);
      try {
        await summarizer.summarize(sampleInput(), { signal: controller.signal });
      } catch (error) {
        ensure(
          abortedAt !== undefined,
          `summarize() rejected before the signal aborted: it ${describeError(error)}`,
        );
        return;
      } finally {
        clearTimeout(timer);
      }
      ensure(
        abortedAt === undefined,
        `summarize(): the signal aborted, but it still resolved ${Date.now() - (abortedAt ?? 0)} ms later (expected a rejection)`,
      );
    },
  },
];
