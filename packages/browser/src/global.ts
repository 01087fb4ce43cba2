/**
 * The script-tag build: `<script src=".../tidings.global.js">` defines `window.Tidings`, with
 * `Tidings.connect` and `Tidings.TidingsError`.
 * @packageDocumentation
 */
import { connect } from './connect.js';
import { TidingsError } from './errors.js';

/** What the script-tag build defines as `window.Tidings`. */
export interface TidingsGlobal {
  connect: typeof connect;
  TidingsError: typeof TidingsError;
}

declare global {
  /** Defined by `@tidings/browser/tidings.global.js` (the script-tag build). */
  var Tidings: TidingsGlobal | undefined;
}

// Assigned by hand rather than through esbuild's `globalName`, which adds a CommonJS-style
// export wrapper to the bundle.
globalThis.Tidings = { connect, TidingsError };
