import { defineConfig } from 'tsup';

const internalProperties = new RegExp(
  `^(${[
    // Step (step.ts)
    'kind',
    'withBrowser',
    'beforeReady',
    // SseParserOptions, SseParser (sse-parser.ts)
    'onEvent',
    'onRetry',
    'feed',
    // ConnectionState, TryUnderWay (connection-state.ts)
    'stateKey',
    'recent',
    'receipts',
    'pushControl',
    'election',
    'unwatch',
    'ownBrowser',
    'resumeId',
    'polling',
    'heartbeatMs',
    'retryBaseMs',
    'currentStatus',
    'lastDetail',
    'phase',
    'wakeNow',
    'openedAt',
    'tokenRefreshes',
    'stalls',
    'underWay',
    'endSleep',
    'activeAt',
    // TabElectionOptions, TabElection (tab-election.ts)
    'channel',
    'state',
    'onRole',
    'onMessage',
    'role',
    'post',
    // ReceiptBatcherOptions, SendOutcome (receipts.ts), RecentIds (recent-ids.ts)
    'send',
    'retry',
    'newest',
    'flush',
  ].join('|')})$`,
);

/** A script-tag build: src/global.ts sets `window.Tidings = { connect, TidingsError }`. */
const scriptTagBuild = (name: string, withPush: boolean) => ({
  entry: { [name]: 'src/global.ts' },
  format: ['iife' as const],
  // Types for `import '@tidings/browser/<name>.global.js'`: the global it defines.
  dts: true,
  // src/build-flags.ts: without push, the minifier drops every push branch of connect.ts.
  define: { __TIDINGS_PUSH__: String(withPush) },
  // Terser after esbuild: a few hundred bytes less than esbuild's own minifier, which matters
  // in a file that must stay under 5 KB gzipped (`npm run size`).
  minify: 'terser' as const,
  terserOptions: {
    ecma: 2020 as const,
    toplevel: true,
    compress: { passes: 3, unsafe_arrows: true, pure_getters: true },
    // Shortens the property names that never leave the bundle: the SDK's own step, context and
    // handler objects. Not the public API, not what is stored or posted to other tabs, not the
    // DOM's; a name added here must be none of those.
    // `builtins: true` because some of them (`send`, `state`, `pause`, …) are also DOM names.
    mangle: { properties: { regex: internalProperties, builtins: true } },
  },
  target: 'es2020',
  platform: 'browser' as const,
  // esbuild's syntax minifier before terser (`let` for `const`, among others): some 20 bytes of gzip
  // that terser alone leaves.
  esbuildOptions(options: { minifySyntax?: boolean }) {
    options.minifySyntax = true;
  },
});

export default defineConfig([
  {
    // For bundlers: modern syntax, types, tree-shakable.
    entry: { index: 'src/index.ts' },
    format: ['esm'],
    dts: true,
    define: { __TIDINGS_PUSH__: 'true' },
    target: 'es2020',
    platform: 'browser',
  },
  // tidings.global.js, within its budget (test/size.test.ts), has no Web Push; a page that wants
  // push loads tidings-push.global.js instead, the same SDK with `enablePush()`/`disablePush()`.
  scriptTagBuild('tidings', false),
  scriptTagBuild('tidings-push', true),
  {
    // tidings-sw.js: the service worker a host serves for Web Push (src/push/service-worker.ts).
    entry: { 'tidings-sw': 'src/push/service-worker.ts' },
    format: ['iife'],
    outExtension: () => ({ js: '.js' }),
    // Types for `@tidings/browser/tidings-sw.js`: a script that exports nothing.
    dts: true,
    minify: true,
    target: 'es2020',
    platform: 'browser',
  },
]);
