import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  // Only Web-standard globals (fetch, AbortController, crypto, setTimeout): one build for every runtime.
  platform: 'neutral',
  target: 'es2022',
});
