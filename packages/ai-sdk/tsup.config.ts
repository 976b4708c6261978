import { defineConfig } from 'tsup';

// Public types use Node's globals (AbortSignal, Buffer, NodeJS): the reference makes them resolve
// in a consumer that lists no `@types` (`"types": []`) as well.
const NODEREF = '/// <reference types="node" />';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  shims: true,
  dts: { banner: NODEREF, compilerOptions: { composite: false, incremental: false } },
  clean: true,
  sourcemap: false,
  target: 'node20',
});
