// The packed packages as a user meets them: installed from their tarballs into two fresh apps in
// a temporary directory outside the repository (so nothing of the workspace resolves), one
// CommonJS, one ES modules with TypeScript. The CommonJS app `require()`s every entry of every
// published package. The ESM app, which installs only what a TypeScript user of an embedding
// installs (not the optional @tidings/dashboard, not @types/pg), `import()`s its entries and
// compiles a small program with `tsc --strict --skipLibCheck false`: every `.d.ts` it reaches
// must compile with those dependencies alone. In that install, the embedded apps of
// scripts/embedded-apps.mjs (Express, Hono, Fastify, and Express with Prisma) are compiled and run. Called by scripts/check-packages.mjs, which packs.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APPS, checkEmbeddedApps, runCommand, versionOf } from './embedded-apps.mjs';
import { workspaces } from './workspaces.mjs';

/**
 * The packages a TypeScript app embedding Tidings installs, its React front end's included; the
 * dashboard and the CLI are not among them.
 */
const EMBEDDING = [
  '@tidings/core',
  '@tidings/store-sqlite',
  '@tidings/store-postgres',
  '@tidings/redis',
  '@tidings/metrics',
  '@tidings/hono',
  '@tidings/express',
  '@tidings/fastify',
  '@tidings/client',
  '@tidings/browser',
  '@tidings/react',
];

/**
 * Entries that load a library the app brings (an optional peer): a transaction adapter of the
 * PostgreSQL store loads its query builder or driver. The CommonJS app installs each library with
 * them; the ESM app, which installs only an embedding's packages, leaves them out.
 */
const PEER_OF_ENTRY = {
  '@tidings/store-postgres/postgres-js': 'postgres',
  '@tidings/store-postgres/drizzle': 'drizzle-orm',
  '@tidings/store-postgres/kysely': 'kysely',
  '@tidings/store-postgres/knex': 'knex',
};

/** The same versions of the TypeScript tooling the repository builds with. */
const TYPESCRIPT_TOOLING = [
  `typescript@${versionOf('typescript')}`,
  `@types/node@^${versionOf('@types/node').split('.')[0]}`,
  `@types/express@^${versionOf('@types/express').split('.')[0]}`,
  `@types/react@^${versionOf('@types/react').split('.')[0]}`,
];
/**
 * The web frameworks of the embedded apps (scripts/embedded-apps.mjs), at the repository's
 * versions; an app that installs its libraries in its own folder is left out.
 */
const FRAMEWORKS = Object.values(APPS)
  .filter(({ ownInstall }) => !ownInstall)
  .flatMap(({ libraries }) => libraries.map((name) => `${name}@${versionOf(name)}`));

/**
 * Every entry point a published package offers to an app's code: not the script-tag builds and
 * the service worker (for pages), nor the conformance kits (`/testing`), which need the test
 * runner, an optional peer that only a store's author installs.
 */
function entriesOf(names) {
  return workspaces()
    .filter(({ manifest }) => manifest.private !== true && names.includes(manifest.name))
    .flatMap(({ manifest }) =>
      Object.keys(manifest.exports ?? {})
        .filter((subpath) => !/\.js$/.test(subpath) && subpath !== './testing')
        .map((subpath) => (subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`)),
    );
}

/** The program the ESM app compiles: one use of each package's types that a user's code makes. */
const PROGRAM = `import { type CreatedApiKeyObject, createTidings, type Tidings } from '@tidings/core';
import { connect, type TidingsErrorCode } from '@tidings/browser';
import { TidingsClient } from '@tidings/client';
import { type InboxResult, useInbox, useUnreadCount, type UnreadCountState } from '@tidings/react';
import { tidingsExpress } from '@tidings/express';
import { tidingsFastify } from '@tidings/fastify';
import { tidingsHono } from '@tidings/hono';
import { createPrometheusMetrics } from '@tidings/metrics';
import { createRedisLimiter } from '@tidings/redis';
import { createPostgresStore, type PostgresPool } from '@tidings/store-postgres';
import { createSqliteStore } from '@tidings/store-sqlite';

export const tidings: Tidings = createTidings({ store: createSqliteStore({ path: ':memory:' }) });

/** The answer that creates a key holds the key: a string, not string | undefined. */
export async function firstKey(projectId: string): Promise<string> {
  const created: CreatedApiKeyObject = await tidings.admin.createKey({ projectId, mode: 'live' });
  return created.key;
}

/** A host's pool, typed without @types/pg; anything else is refused rather than read as any. */
export function onHostPool(pool: PostgresPool) {
  // @ts-expect-error: a number is not a pool
  void createPostgresStore({ pool: 42 });
  return createPostgresStore({ pool, schema: 'tidings' });
}

export const mounted = [tidingsHono(tidings), tidingsExpress(tidings)] as const;
export const plugin = tidingsFastify;
export const client = new TidingsClient({ apiKey: 'sk_test_x', baseUrl: 'http://127.0.0.1:8787' });
export const codes: TidingsErrorCode[] = ['EXTERNAL_ERROR', 'UNAUTHORIZED'];
export const sdk = connect;
export const metrics = createPrometheusMetrics;
export const limiter = createRedisLimiter;
export const useUnreadList = (): InboxResult => useInbox({ unread: true, pageSize: 10 });
export const useBadge = (): UnreadCountState => useUnreadCount();
`;

/** A script that loads each of `entries` through `require()` or `import()`, and exits non-zero if one exports no name. */
function loader(how, entries) {
  const load =
    how === 'require'
      ? 'Object.keys(require(entry))'
      : 'Object.keys(await import(entry)).filter((name) => name !== "default")';
  return `const entries = ${JSON.stringify(entries)};
const empty = [];
for (const entry of entries) if (${load}.length === 0) empty.push(entry);
if (empty.length > 0) { console.error('no names from ' + empty.join(', ')); process.exit(1); }
console.log(entries.length + ' entries loaded');
`;
}

/** npm without its funding notices in the output. */
const NPM_ENV = { ...process.env, npm_config_fund: 'false' };

/**
 * Installs `tarballs` (package name → packed .tgz) into a CommonJS app and an ESM TypeScript app
 * and checks them, then the embedded Express and Hono apps in the ESM app's install; one
 * `{ name, ok, output }` per check.
 */
export async function checkConsumerApps(tarballs) {
  const base = mkdtempSync(join(tmpdir(), 'tidings-apps-'));
  // Scripts stay off: better-sqlite3's native addon is not built, which loading does not need.
  const install = ['install', '--ignore-scripts', '--no-audit', '--prefer-offline', '--loglevel=error'];
  /** The checks of one app, in order; each `step` answers whether it passed. */
  const checks = () => {
    const results = [];
    const step = (name, result) => {
      results.push({ name, ...result });
      return result.ok;
    };
    return { results, step };
  };

  async function checkCommonJsApp() {
    const { results, step } = checks();
    const cjs = join(base, 'cjs-app');
    mkdirSync(cjs);
    writeFileSync(join(cjs, 'package.json'), JSON.stringify({ name: 'cjs-app', private: true, type: 'commonjs' }));
    const all = [...tarballs.keys()];
    writeFileSync(join(cjs, 'index.js'), loader('require', entriesOf(all)));
    const peers = Object.values(PEER_OF_ENTRY).map((name) => `${name}@${versionOf(name)}`);
    if (
      step(
        'CommonJS app: npm install of every package, and the libraries of its adapters',
        await runCommand('npm', [...install, ...tarballs.values(), ...peers], cjs, NPM_ENV),
      )
    ) {
      step(
        'CommonJS app: require() of every entry of every package',
        await runCommand(process.execPath, ['index.js'], cjs),
      );
    }
    return results;
  }

  async function checkEsmApp() {
    const { results, step } = checks();
    const esm = join(base, 'esm-app');
    mkdirSync(esm);
    writeFileSync(join(esm, 'package.json'), JSON.stringify({ name: 'esm-app', private: true, type: 'module' }));
    writeFileSync(
      join(esm, 'index.js'),
      loader(
        'import',
        entriesOf(EMBEDDING).filter((entry) => !(entry in PEER_OF_ENTRY)),
      ),
    );
    writeFileSync(join(esm, 'app.ts'), PROGRAM);
    const embedding = EMBEDDING.map((name) => tarballs.get(name));
    if (
      step(
        "ESM app: npm install of an embedding's packages, TypeScript and the web frameworks",
        await runCommand('npm', [...install, ...embedding, ...TYPESCRIPT_TOOLING, ...FRAMEWORKS], esm, NPM_ENV),
      )
    ) {
      step('ESM app: import() of every entry', await runCommand(process.execPath, ['index.js'], esm));
      const tsc = join(esm, 'node_modules', 'typescript', 'bin', 'tsc');
      const flags = ['--strict', '--skipLibCheck', 'false', '--noEmit', '--module', 'nodenext', '--target', 'es2022'];
      step(
        'ESM app: tsc --strict --skipLibCheck false, without @tidings/dashboard and @types/pg',
        await runCommand(process.execPath, [tsc, ...flags, 'app.ts'], esm),
      );
      results.push(...(await checkEmbeddedApps(esm)));
    }
    return results;
  }

  try {
    // The two apps side by side, each in its own folder: an install mostly waits on npm's cache
    // and a compile is one core's work, so together they take little longer than the ESM app alone.
    const settled = await Promise.allSettled([checkCommonJsApp(), checkEsmApp()]);
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.flatMap((outcome) => outcome.value);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
