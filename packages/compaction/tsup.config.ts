import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/testing.ts'],
  format: ['esm', 'cjs'],
  shims: true,
  dts: { compilerOptions: { composite: false, incremental: false } },
  clean: true,
  sourcemap: false,
  target: 'node20',
  // gpt-tokenizer's byte-pair encoder (~300 kB) is bundled; its ranks ship as ranks/*.json.br, so
  // adopters do not install its 30 MB (every encoding, three formats).
  noExternal: [/^gpt-tokenizer(\/|$)/],
});
