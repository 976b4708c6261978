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
  // turndown, its GFM plugin and its DOM (@mixmark-io/domino, whose npm package is 9 MB, 7 MB of
  // it tests) are bundled: ~0.8 MB per format instead of 9 MB installed. Licenses: THIRD_PARTY.md.
  noExternal: [/^turndown$/, /^@joplin\/turndown-plugin-gfm$/, /^@mixmark-io\/domino(\/|$)/],
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
