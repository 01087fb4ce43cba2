import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', sql: 'src/sql.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node22',
});
