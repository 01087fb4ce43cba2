/**
 * The script-tag builds: `<script src=".../tidings.global.js">` (or `tidings-push.global.js`, the
 * same with Web Push) defines `window.Tidings`, with `Tidings.connect` and `Tidings.TidingsError`.
 * @packageDocumentation
 */
import { connect } from './connect.js';
import { TidingsError } from './errors.js';
import type { ConnectOptions } from './options.js';
import type { TidingsConnection } from './types.js';

/**
 * The handle of the script-tag builds: `enablePush` and `disablePush` are there in
 * `tidings-push.global.js` and `tidings-inbox.global.js`, `inbox` in `tidings-inbox.global.js` only.
 */
export type TidingsScriptConnection = Omit<TidingsConnection, 'enablePush' | 'disablePush' | 'inbox'> &
  Partial<Pick<TidingsConnection, 'enablePush' | 'disablePush' | 'inbox'>>;

/** What the script-tag builds define as `window.Tidings`. */
export interface TidingsGlobal {
  connect: (options: ConnectOptions) => TidingsScriptConnection;
  TidingsError: typeof TidingsError;
}

declare global {
  /** Defined by `@tidings/browser/tidings.global.js` or `tidings-push.global.js` (the script-tag builds). */
  var Tidings: TidingsGlobal | undefined;
}

// Assigned by hand rather than through esbuild's `globalName`, which adds a CommonJS-style
// export wrapper to the bundle.
globalThis.Tidings = { connect, TidingsError };
