import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: ['src/index.ts'],
    format: ['esm'],
    dts: true,
    // The bin build below writes into the same folder at the same time: leave its files alone.
    clean: ['!bin.js'],
    target: 'node22',
  },
  {
    entry: ['src/bin.ts'],
    format: ['esm'],
    target: 'node22',
    banner: { js: '#!/usr/bin/env node' },
  },
]);
