/**
 * `@tidings/browser/inbox`: the `<tidings-inbox>` element, registered on import. It takes the
 * connection of `@tidings/browser` (or of `tidings-inbox.global.js`) through its `connection` property.
 * @packageDocumentation
 */
import { defineTidingsInbox } from './element.js';

export {
  defineTidingsInbox,
  TidingsInboxElement,
  type TidingsInboxSelectDetail,
  type TidingsInboxSource,
} from './element.js';

defineTidingsInbox();
