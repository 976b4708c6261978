// A tiny test runner with deterministic output (no timings), so reruns compare byte for byte.
import { add } from './src/add.js';

const cases = [
  [1, 2, 3],
  [-4, 4, 0],
  [10, 5, 15],
];
let failed = 0;
for (const [a, b, expected] of cases) {
  const actual = add(a, b);
  if (actual === expected) console.log(`ok add(${a}, ${b}) = ${expected}`);
  else {
    failed++;
    console.log(`not ok add(${a}, ${b}): expected ${expected}, got ${actual}`);
  }
}
console.log(failed ? `${failed} of ${cases.length} failed` : `all ${cases.length} passed`);
process.exit(failed ? 1 : 0);
