import { defineConfig } from 'tsup';

// Public types use Node's globals (AbortSignal, Buffer, NodeJS): the reference makes them resolve
// in a consumer that lists no `@types` (`"types": []`) as well.
const NODEREF = '/// <reference types="node" />';

// Two entries: the public API (with types) and the CLI itself. Command modules stay separate
// chunks, loaded lazily, so `spine --version` and small commands start fast.
export default defineConfig({
  entry: ['src/index.ts', 'src/main.ts'],
  format: ['esm'],
  dts: {
    entry: 'src/index.ts',
    banner: NODEREF,
    compilerOptions: { composite: false, incremental: false },
  },
  splitting: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
