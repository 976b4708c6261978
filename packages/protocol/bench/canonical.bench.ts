import { canonicalJson } from '@spine/protocol';
const value = { b: [1, 2, 3], a: { z: 'x', y: null } };
const start = performance.now();
for (let i = 0; i < 100_000; i++) canonicalJson(value);
const ms = performance.now() - start;
console.log(JSON.stringify({ bench: 'protocol/canonical', opsPerSecond: Math.round(100_000 / (ms / 1000)) }));
