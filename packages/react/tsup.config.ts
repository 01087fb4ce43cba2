import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm'],
  dts: true,
  clean: true,
  // React and the browser SDK are the app's own copies (peer dependencies), never bundled.
  external: ['react', '@tidings/browser'],
  platform: 'browser',
  target: 'es2020',
});
