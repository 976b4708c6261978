import { rmSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';

// Public types use Node's globals (AbortSignal, Buffer, NodeJS): the reference makes them resolve
// in a consumer that lists no `@types` (`"types": []`) as well.
const NODEREF = '/// <reference types="node" />';

// Splitting (for CommonJS too) keeps one copy of each module in a shared chunk, so the error
// classes are the same whichever entry threw them. Declarations are built per entry, without
// shared chunks, so that each entry's `.d.ts` is complete on its own (the API report prints it).
const entries = ['src/index.ts', 'src/internal.ts', 'src/testing.ts'];
const common: Options = {
  shims: true,
  sourcemap: false,
  target: 'node20',
  // turndown, its GFM plugin and its DOM (@mixmark-io/domino, whose npm package is 9 MB, 7 MB of
  // it tests) are bundled: ~0.8 MB per format instead of 9 MB installed. Licenses: THIRD_PARTY.md.
  noExternal: [/^turndown$/, /^@joplin\/turndown-plugin-gfm$/, /^@mixmark-io\/domino(\/|$)/],
};
// The CommonJS build also bundles linkedom and its dependency tree: linkedom's CommonJS build
// requires css-select, which ships only as ES modules, and Node before 20.19 cannot require() ES
// modules. The ES module build keeps linkedom external. `canvas` (linkedom's optional peer) stays
// external: linkedom's shim catches its absence. Licenses: THIRD_PARTY.md.
const cjs: Options = {
  ...common,
  format: ['cjs'],
  external: ['canvas'],
  noExternal: [
    ...(common.noExternal ?? []),
    /^linkedom(\/|$)/,
    /^css-select(\/|$)/,
    /^css-what(\/|$)/,
    /^boolbase(\/|$)/,
    /^nth-check(\/|$)/,
    /^domhandler(\/|$)/,
    /^domelementtype(\/|$)/,
    /^domutils(\/|$)/,
    /^dom-serializer(\/|$)/,
    /^entities(\/|$)/,
    /^htmlparser2(\/|$)/,
    /^cssomnom(\/|$)/,
    /^html-escaper(\/|$)/,
    /^uhyphen(\/|$)/,
  ],
};
const esm: Options = { ...common, format: ['esm'] };
const dts = {
  banner: NODEREF,
  compilerOptions: { composite: false, incremental: false },
  only: true,
};

// The two formats build in separate configs (each with splitting). tsup runs configs concurrently,
// so `clean` in one could delete another's output: dist is emptied once, here, before any runs.
rmSync(new URL('./dist', import.meta.url), { recursive: true, force: true });

export default defineConfig([
  { ...esm, entry: entries, splitting: true, dts: false },
  { ...cjs, entry: entries, splitting: true, dts: false },
  ...entries.map((entry) => ({
    ...common,
    format: ['esm', 'cjs'] as Options['format'],
    entry: [entry],
    dts,
  })),
]);
