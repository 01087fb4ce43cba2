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
      // Two files at a time: a file spends most of its time waiting on its own server and
      // Chromium's renderer (page loads, axe, screenshots), so two of them keep 2 cores busy where
      // one left them half idle. Not more: each file runs a server and a Chromium of its own, and
      // the tests that time a take-over (tabs) or a grace (push) need their timers kept.
      maxWorkers: 2,
      reporters: ['default', skippedSuitesReporter(plan)],
    },
  };
});
