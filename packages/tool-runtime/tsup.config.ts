import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/testing.ts'],
  format: ['esm', 'cjs'],
  shims: true,
  dts: { compilerOptions: { composite: false, incremental: false } },
  clean: true,
  sourcemap: false,
  target: 'node20',
  // web-tree-sitter's JavaScript is bundled (its wasm ships in grammars/): its npm package is
  // 4.6 MB, mostly debug builds and source maps.
  noExternal: [/^web-tree-sitter$/],
});
