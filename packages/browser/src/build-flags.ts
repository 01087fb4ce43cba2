// tsup's `define` sets these flags per build (tsup.config.ts): the minifier then drops every
// branch of a feature a build leaves out. Sources run as they are (tests) and the ESM build have
// every feature.
declare const __TIDINGS_PUSH__: boolean | undefined;
declare const __TIDINGS_INBOX__: boolean | undefined;

/** Web Push: false in `tidings.global.js`, whose gzipped size has a budget. */
export const withPush: boolean = typeof __TIDINGS_PUSH__ === 'undefined' || __TIDINGS_PUSH__;

/** The inbox (`connection.inbox`): false in `tidings.global.js` and `tidings-push.global.js`. */
export const withInbox: boolean = typeof __TIDINGS_INBOX__ === 'undefined' || __TIDINGS_INBOX__;
