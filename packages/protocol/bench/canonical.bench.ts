// canonicalJson (sorted keys, used for request hashes) against JSON.stringify of the same value.
import { canonicalJson } from '@spine/protocol';

const message = {
  role: 'assistant',
  content: [
    { type: 'reasoning', text: 'x'.repeat(200) },
    { type: 'text', text: 'y'.repeat(600) },
    { type: 'tool-call', id: 'call_1', name: 'read', arguments: '{"path":"src/index.ts"}' },
  ],
};
const rounds = 50_000;
function time(fn: () => void): number {
  const start = performance.now();
  for (let i = 0; i < rounds; i++) fn();
  return performance.now() - start;
}
time(() => JSON.stringify(message));
time(() => canonicalJson(message));
const baselineMs = time(() => JSON.stringify(message));
const canonicalMs = time(() => canonicalJson(message));
const ratio = canonicalMs / baselineMs;
console.log(
  `JSON.stringify ${baselineMs.toFixed(1)} ms, canonicalJson ${canonicalMs.toFixed(1)} ms for ${rounds} messages`,
);
console.log(
  JSON.stringify({
    bench: 'protocol/canonical',
    rounds,
    baselineMs: +baselineMs.toFixed(1),
    canonicalMs: +canonicalMs.toFixed(1),
    ratioToStringify: +ratio.toFixed(2),
  }),
);
