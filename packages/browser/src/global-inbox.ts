/**
 * `tidings-inbox.global.js`: the script-tag build with the inbox. It defines `window.Tidings` as
 * `tidings.global.js` does (see global.ts), whose handles also have `connection.inbox`, and
 * registers the `<tidings-inbox>` element.
 * @packageDocumentation
 */
import { connect } from './connect.js';
import { TidingsError } from './errors.js';
import type { TidingsGlobal } from './global.js';
import { defineTidingsInbox } from './inbox-element/element.js';

export type { TidingsGlobal, TidingsScriptConnection } from './global.js';

globalThis.Tidings = { connect, TidingsError } satisfies TidingsGlobal;
defineTidingsInbox();
