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
    minify: true,
    target: 'es2020',
    platform: 'browser',
  },
]);
