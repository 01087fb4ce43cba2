import { defineConfig } from 'vitest/config';
import { planRun, skippedSuitesReporter, TEST_SERVICES } from './test/support/services.js';
import { alias } from './vitest.shared.js';

export default defineConfig(async () => {
  // Suites whose service (PostgreSQL, Redis, redis-server, nginx) is missing are left out and named
  // at the end; under TIDINGS_TEST_REQUIRE_SERVICES=1 (CI) a missing service fails the run.
  const plan = await planRun(TEST_SERVICES);
  return {
    resolve: { alias },
    test: {
      include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
      exclude: ['**/node_modules/**', '**/dist/**', 'test/browser/**', ...plan.exclude],
      testTimeout: 20_000,
      hookTimeout: 60_000,
      reporters: ['default', skippedSuitesReporter(plan)],
    },
  };
});
