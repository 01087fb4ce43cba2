import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: ['src/index.ts'],
    format: ['esm'],
    dts: true,
    // Both builds write into dist/ at the same time, so neither cleans it: the build script does, first.
    clean: false,
    target: 'node22',
  },
  {
    entry: ['src/bin.ts'],
    format: ['esm'],
    // The CLI is a chunk of its own, loaded by bin.js only once it knows it will not start again.
    splitting: true,
    clean: false,
    target: 'node22',
    banner: { js: '#!/usr/bin/env node' },
  },
]);
