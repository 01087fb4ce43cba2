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
    'inboxControl',
    'inboxRecipient',
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
    // InboxControl (inbox.ts)
    'updated',
    'notified',
    'statusChanged',
    // ReceiptBatcherOptions, SendOutcome (receipts.ts), RecentIds (recent-ids.ts)
    'send',
    'retry',
    'newest',
    'flush',
    // The members of the <tidings-inbox> element's class (inbox-element/element.ts): `_` and a letter.
    '_[a-zA-Z]\\w*',
  ].join('|')})$`,
);

/** The features a build keeps (src/build-flags.ts): the minifier drops every branch of the others. */
const features = (flags: { push: boolean; inbox: boolean }) => ({
  __TIDINGS_PUSH__: String(flags.push),
  __TIDINGS_INBOX__: String(flags.inbox),
});

/**
 * A script-tag build: src/global.ts sets `window.Tidings = { connect, TidingsError }` (and
 * src/global-inbox.ts also registers `<tidings-inbox>`).
 */
const scriptTagBuild = (name: string, entry: string, flags: { push: boolean; inbox: boolean }) => ({
  entry: { [name]: entry },
  format: ['iife' as const],
  // Types for `import '@tidings/browser/<name>.global.js'`: the global it defines.
  dts: true,
  define: features(flags),
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
  // Class fields as they are (every browser the SDK supports has them): lowered, they become
  // string keys that terser cannot shorten.
  esbuildOptions(options: { minifySyntax?: boolean; supported?: Record<string, boolean> }) {
    options.minifySyntax = true;
    options.supported = { 'class-field': true, 'class-static-field': true };
  },
});

export default defineConfig([
  {
    // For bundlers: modern syntax, types, tree-shakable.
    // `inbox`: the <tidings-inbox> element, which imports nothing of the SDK but its types.
    entry: { index: 'src/index.ts', inbox: 'src/inbox-element/index.ts' },
    format: ['esm'],
    dts: true,
    define: features({ push: true, inbox: true }),
    target: 'es2020',
    platform: 'browser',
  },
  // tidings.global.js, within its budget (test/size.test.ts), has no Web Push; a page that wants
  // push loads tidings-push.global.js instead, the same SDK with `enablePush()`/`disablePush()`.
  // tidings-inbox.global.js: the SDK with `connection.inbox`, and the <tidings-inbox> element.
  scriptTagBuild('tidings', 'src/global.ts', { push: false, inbox: false }),
  scriptTagBuild('tidings-push', 'src/global.ts', { push: true, inbox: false }),
  scriptTagBuild('tidings-inbox', 'src/global-inbox.ts', { push: false, inbox: true }),
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
