import { defineConfig, type Options } from 'tsup';

// Public types use Node's globals (AbortSignal, Buffer, NodeJS): the reference makes them resolve
// in a consumer that lists no `@types` (`"types": []`) as well.
const NODEREF = '/// <reference types="node" />';

// Splitting (for CommonJS too) keeps one copy of each module in a shared chunk, so the error
// classes are the same whichever entry threw them. Declarations are built per entry, without
// shared chunks, so that each entry's `.d.ts` is complete on its own (the API report prints it).
const entries = ['src/index.ts', 'src/internal.ts', 'src/testing.ts'];
const common: Options = {
  format: ['esm', 'cjs'],
  shims: true,
  sourcemap: false,
  target: 'node20',
  // gpt-tokenizer's byte-pair encoder (~300 kB) is bundled; its ranks ship as ranks/*.json.br, so
  // adopters do not install its 30 MB (every encoding, three formats).
  noExternal: [/^gpt-tokenizer(\/|$)/],
};
const dts = {
  banner: NODEREF,
  compilerOptions: { composite: false, incremental: false },
  only: true,
};

export default defineConfig([
  { ...common, entry: entries, splitting: true, clean: true, dts: false },
  ...entries.map((entry) => ({ ...common, entry: [entry], dts })),
]);
