import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/testing.ts'],
  format: ['esm', 'cjs'],
  shims: true,
  dts: { compilerOptions: { composite: false, incremental: false } },
  clean: true,
  sourcemap: false,
  target: 'node20',
});
