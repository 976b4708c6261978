import { defineConfig, type Options } from 'tsup';

// `core` is the zod-free part of the main entry. Splitting (for CommonJS too) keeps one copy of
// each module in a shared chunk, so `SpineError` and the append-only registry are the same
// instances whichever entry loaded them. Declarations are built per entry, without shared chunks,
// so that each entry's `.d.ts` is complete on its own (the API report prints it).
const entries = ['src/index.ts', 'src/core.ts', 'src/testing.ts'];
const dtsOptions = {
  banner: '/// <reference types="node" />',
  compilerOptions: { composite: false, incremental: false },
};
const common: Options = { format: ['esm', 'cjs'], shims: true, sourcemap: false, target: 'node20' };

export default defineConfig([
  { ...common, entry: entries, splitting: true, clean: true, dts: false },
  ...entries.map((entry) => ({ ...common, entry: [entry], dts: { ...dtsOptions, only: true } })),
]);
