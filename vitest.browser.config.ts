import { defineConfig } from 'vitest/config';
import { BROWSER_TEST_SERVICES, planRun, skippedSuitesReporter } from './test/support/services.js';
import { alias, browserTests } from './vitest.shared.js';

/** Tests that drive Debian's Chromium through playwright-core (`npm run test:browser`). */
export default defineConfig(async () => {
  const plan = await planRun(BROWSER_TEST_SERVICES);
  return {
    resolve: { alias },
    test: {
      include: browserTests,
      exclude: ['**/node_modules/**', ...plan.exclude],
      // With Chromium missing every suite is left out: the summary line says so.
      passWithNoTests: plan.exclude.length > 0,
      testTimeout: 60_000,
      hookTimeout: 120_000,
      fileParallelism: false,
      reporters: ['default', skippedSuitesReporter(plan)],
    },
  };
});
