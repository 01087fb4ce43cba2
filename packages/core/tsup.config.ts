import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', testing: 'src/testing/index.ts', node: 'src/node/index.ts', store: 'src/store.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node22',
  external: ['vitest', 'fast-check'],
});
