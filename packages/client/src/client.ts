import { type ConnectTokens, createConnectTokens } from './connect-tokens.js';
import { createInbox, type Inbox } from './inbox.js';
import { createNotifications, type Notifications } from './notifications.js';
import { type ResolvedClientOptions, resolveClientOptions, type TidingsClientOptions } from './options.js';

/**
 * The Tidings server SDK: `new TidingsClient({ apiKey, baseUrl })`. It needs nothing but `fetch`,
 * so one build runs on Node.js 22+, Bun, Deno and edge runtimes. Throws a `TypeError` at once on
 * a bad option, and when a live key finds itself in a web page.
 */
export class TidingsClient {
  /** Send notifications and read their delivery status. */
  readonly notifications: Notifications;
  /** Mint connect tokens for your signed-in users' pages. */
  readonly connectTokens: ConnectTokens;
  /** Each recipient's inbox: list, count and mark their items. */
  readonly inbox: Inbox;
  /** `live` or `test`, from the key. */
  readonly mode: 'live' | 'test';

  constructor(options: TidingsClientOptions) {
    const resolved: ResolvedClientOptions = resolveClientOptions(options);
    this.mode = resolved.mode;
    this.notifications = createNotifications(resolved);
    this.connectTokens = createConnectTokens(resolved);
    this.inbox = createInbox(resolved);
  }
}
