import { fileURLToPath } from 'node:url';

const src = (path: string) => fileURLToPath(new URL(`./packages/${path}`, import.meta.url));

/** Tests import the packages' sources, so no build is needed to run them. */
export const alias = [
  { find: /^@tidings\/core\/testing$/, replacement: src('core/src/testing/index.ts') },
  { find: /^@tidings\/core\/node$/, replacement: src('core/src/node/index.ts') },
  { find: /^@tidings\/core$/, replacement: src('core/src/index.ts') },
  { find: /^@tidings\/store-sqlite$/, replacement: src('store-sqlite/src/index.ts') },
  { find: /^@tidings\/store-postgres$/, replacement: src('store-postgres/src/index.ts') },
  { find: /^@tidings\/redis$/, replacement: src('redis/src/index.ts') },
  { find: /^@tidings\/metrics$/, replacement: src('metrics/src/index.ts') },
  { find: /^@tidings\/hono$/, replacement: src('adapter-hono/src/index.ts') },
  { find: /^@tidings\/express$/, replacement: src('adapter-express/src/index.ts') },
  { find: /^@tidings\/browser$/, replacement: src('browser/src/index.ts') },
  { find: /^@tidings\/client$/, replacement: src('client/src/index.ts') },
  { find: /^@tidings\/dashboard\/testing$/, replacement: src('dashboard/src/testing/index.ts') },
  { find: /^@tidings\/dashboard$/, replacement: src('dashboard/src/index.ts') },
];
