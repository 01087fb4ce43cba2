import { defineConfig } from 'tsup';

export default defineConfig([
  {
    // For bundlers: modern syntax, types, tree-shakable.
    entry: { index: 'src/index.ts' },
    format: ['esm'],
    dts: true,
    target: 'es2020',
    platform: 'browser',
  },
  {
    // For a script tag: src/global.ts sets `window.Tidings = { connect, TidingsError }`.
    entry: { tidings: 'src/global.ts' },
    format: ['iife'],
    // Types for `import '@tidings/browser/tidings.global.js'`: the global it defines.
    dts: true,
    // Terser after esbuild: a few hundred bytes less than esbuild's own minifier, which matters
    // in a file that must stay under 5 KB gzipped (`npm run size`).
    minify: 'terser',
    terserOptions: {
      ecma: 2020,
      toplevel: true,
      compress: { passes: 3, unsafe_arrows: true, pure_getters: true },
    },
    target: 'es2020',
    platform: 'browser',
  },
]);
