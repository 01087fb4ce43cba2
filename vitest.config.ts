import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { planRun, skippedSuitesReporter, TEST_SERVICES } from './test/support/services.js';
import { stepTimesReporter } from './test/support/step-times.js';
import { alias, testProjects } from './vitest.shared.js';

/**
 * Files run side by side: most of a test's time is spent waiting on a server, a process, a
 * database or a timer, not on the CPU, so twice the cores keeps them busy without starving a
 * test's own timers (vitest's default, one worker fewer than the cores, is a single worker on a
 * 2-core machine). At most 8, so that a large machine does not open dozens of servers at once.
 * `VITEST_MAX_WORKERS` sets another number.
 */
const sideBySide = Number(process.env.VITEST_MAX_WORKERS) || Math.min(8, Math.max(2, availableParallelism() * 2));

export default defineConfig(async () => {
  // Suites whose service (PostgreSQL, Redis, redis-server, nginx) is missing are left out and named
  // at the end; under TIDINGS_TEST_REQUIRE_SERVICES=1 (CI) a missing service fails the run.
  const plan = await planRun(TEST_SERVICES);
  const exclude = ['**/node_modules/**', '**/dist/**', ...plan.exclude];
  return {
    resolve: { alias },
    test: {
      testTimeout: 20_000,
      hookTimeout: 60_000,
      maxWorkers: sideBySide,
      reporters: ['default', skippedSuitesReporter(plan), stepTimesReporter()],
      // A file during which node-postgres prints a deprecation warning fails.
      setupFiles: ['test/support/no-pg-deprecations.ts'],
      projects: Object.entries(testProjects).map(([name, include]) => ({
        extends: true as const,
        test: { name, include, exclude },
      })),
    },
  };
});
