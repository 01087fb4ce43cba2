import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
const { compilerOptions } = JSON.parse(readFileSync(new URL('./tsconfig.json', import.meta.url), 'utf8')) as {
  compilerOptions: { paths: Record<string, [string]> };
};

/** `@tidings/core/testing` → `^@tidings\/core\/testing$`; a trailing `*` matches the rest of the path. */
function pattern(specifier: string): RegExp {
  const escaped = specifier.replace(/[.*+?^${}()|[\]\\/]/g, (char) => (char === '*' ? '(.*)' : `\\${char}`));
  return new RegExp(`^${escaped}$`);
}

/**
 * Tests import the packages' sources, so no build is needed to run them: every alias comes from
 * tsconfig.json's `paths`, the one list of the workspace's entry points (a test checks it against
 * the packages' `exports`).
 */
export const alias = Object.entries(compilerOptions.paths)
  // The longest first, so that `@tidings/core/testing` wins over `@tidings/core`.
  .sort(([a], [b]) => b.length - a.length)
  .map(([specifier, [target]]) => ({ find: pattern(specifier), replacement: `${root}${target.replace('*', '$1')}` }));

/** The test projects, by what their tests start: `npm test -- --project NAME` runs one. */
export const testProjects: Record<string, string[]> = {
  /** The core's rules, the adapters, the SDKs and the dashboard's pages and rules, in process. */
  unit: [
    'packages/{core,browser,client,metrics,adapter-hono,adapter-express,adapter-fastify,adapter-next,adapter-nestjs}/src/**/*.test.ts',
    'packages/dashboard/src/*.test.ts',
    'packages/dashboard/src/!(sqlite|postgres)/**/*.test.ts',
    'packages/{core,browser,client,dashboard,metrics,react}/test/**/*.test.ts',
  ],
  /** The stores, the dashboard's storage on each, and the Redis limiter and hub, on their real databases. */
  stores: [
    'packages/{store-sqlite,store-postgres,redis}/{src,test}/**/*.test.ts',
    'packages/dashboard/src/{sqlite,postgres}/**/*.test.ts',
  ],
  /** The `tidings` CLI and server, run as processes. */
  cli: ['packages/cli/{src,test}/**/*.test.ts'],
  /** The whole path as a user meets it, and the repository's own checks (docs, README, benches). */
  e2e: ['test/{e2e,adapters,support,docs,readme,repo,generated-client,bench}/**/*.test.ts'],
  /** Several instances behind nginx, Redis Cluster failover, webhooks and pushes across instances. */
  deploy: ['test/deploy/**/*.test.ts'],
};

/** The browser tests, a config of their own (`npm run test:browser`). */
export const browserTests = ['test/browser/**/*.test.ts'];
