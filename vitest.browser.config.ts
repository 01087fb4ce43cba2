import { defineConfig } from 'vitest/config';
import { alias } from './vitest.shared.js';

/** Tests that drive Debian's Chromium through playwright-core (`npm run test:browser`). */
export default defineConfig({
  resolve: { alias },
  test: {
    include: ['test/browser/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
