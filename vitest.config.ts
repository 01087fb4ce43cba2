import { defineConfig } from 'vitest/config';
import { alias } from './vitest.shared.js';

export default defineConfig({
  resolve: { alias },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/dist/**', 'test/browser/**'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
