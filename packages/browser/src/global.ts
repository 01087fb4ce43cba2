/**
 * The script-tag build: `<script src=".../tidings.global.js">` defines `window.Tidings`, with
 * `Tidings.connect` and `Tidings.TidingsError`.
 * @packageDocumentation
 */
import { connect } from './connect.js';
import { TidingsError } from './errors.js';

// Assigned by hand rather than through esbuild's `globalName`, which adds a CommonJS-style
// export wrapper to the bundle.
(globalThis as { Tidings?: unknown }).Tidings = { connect, TidingsError };
