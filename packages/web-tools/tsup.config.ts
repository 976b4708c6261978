import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/testing.ts'],
  format: ['esm', 'cjs'],
  shims: true,
  dts: { compilerOptions: { composite: false, incremental: false } },
  clean: true,
  sourcemap: false,
  target: 'node20',
  // turndown, its GFM plugin and its DOM (@mixmark-io/domino, whose npm package is 9 MB, 7 MB of
  // it tests) are bundled: ~0.8 MB per format instead of 9 MB installed. Licenses: THIRD_PARTY.md.
  noExternal: [/^turndown$/, /^@joplin\/turndown-plugin-gfm$/, /^@mixmark-io\/domino(\/|$)/],
});
