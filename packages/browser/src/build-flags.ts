// tsup's `define` sets __TIDINGS_PUSH__ to false in the script-tag build without push
// (tidings.global.js), whose gzipped size has a budget: the minifier then drops every push branch.
// Sources run as they are (tests) and every other build have push.
declare const __TIDINGS_PUSH__: boolean | undefined;

/** False only in `tidings.global.js`; see above. */
export const withPush: boolean = typeof __TIDINGS_PUSH__ === 'undefined' || __TIDINGS_PUSH__;
