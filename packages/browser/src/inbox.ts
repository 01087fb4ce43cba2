import { Phase } from './connection-machine.js';
import { type ConnectionState, report, safely } from './connection-state.js';
import { protocolError, TidingsError } from './errors.js';
import { postText, problemError, readJson } from './http.js';
import type {
  TidingsInbox,
  TidingsInboxCounts,
  TidingsInboxEvent,
  TidingsInboxItem,
  TidingsInboxListOptions,
  TidingsInboxUpdate,
} from './inbox-types.js';
import type { BrowserCredentials } from './receipts.js';
import type { TidingsNotification, TidingsStatus } from './types.js';

/**
 * The inbox of a connection: the public handle (`connection.inbox`), and what the connection
 * tells it. Every use is behind `if (withInbox)` (build-flags.ts), so the builds without the inbox
 * keep none of it.
 */
export interface InboxControl {
  handle: TidingsInbox;
  /** An `inbox` event: from the stream (`fromServer`, then relayed to the other tabs) or from the leader tab. */
  updated(payload: unknown, fromServer: boolean): void;
  /** A notification handed to the app for the first time. */
  notified(notification: TidingsNotification): void;
  /** Every status the app is told. */
  statusChanged(status: TidingsStatus): void;
}

type Listener = (event: TidingsInboxEvent) => void;

/** A new notification as the inbox item the server made of it. */
const itemOf = (notification: TidingsNotification, recipient: string): TidingsInboxItem => ({
  object: 'inbox_item',
  id: notification.notification_id,
  recipient,
  title: notification.title,
  body: notification.body,
  url: notification.url,
  icon: notification.icon,
  tag: notification.tag,
  data: notification.data,
  created_at: notification.created_at,
  seen_at: null,
  read_at: null,
  archived_at: null,
});

/** The body of a list request: the API's names, and none of the options left out. */
const listBody = (options: TidingsInboxListOptions = {}) => ({
  unread: options.unread,
  archived: options.archived,
  limit: options.limit,
  starting_after: options.startingAfter,
});

export function createInbox(s: ConnectionState): InboxControl {
  const listeners = new Set<Listener>();
  /** Requests waiting for the browser's credentials: woken on every status change. */
  let waiting: (() => void)[] = [];
  let hadOpen = false;
  let refreshing = false;
  let refreshQueued = false;
  /** The counts with the highest version yet, of answers and events, which may arrive out of order. */
  let latest: TidingsInboxCounts | undefined;

  /** The later of `counts` and the latest yet; `counts` become the latest unless they are older. */
  const later = (counts: TidingsInboxCounts) => {
    if (!latest || !(counts.version < latest.version)) latest = counts;
    return latest;
  };

  const emit = (event: TidingsInboxEvent) => {
    for (const listener of [...listeners]) safely(s, listener, event);
  };

  /** The browser's credentials once the connection has opened (its `ready`, or the leader's). */
  const browser = async (): Promise<BrowserCredentials> => {
    while (!hadOpen || !s.ownBrowser) {
      if (s.phase === Phase.Closed) throw new TidingsError('NOT_CONNECTED', 'The connection is closed');
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
    return s.ownBrowser;
  };

  /**
   * POSTs to `/v1/browsers/{id}/inbox{path}` with the browser's secret; the answer's JSON, or
   * throws. A mark is `keepalive`: a click that marks an item read and follows its link leaves the page.
   */
  const post = async (path: string, body: object): Promise<unknown> => {
    const { browserId, browserSecret } = await browser();
    const url = `${s.baseUrl}/v1/browsers/${encodeURIComponent(browserId)}/inbox${path}`;
    const init = path === '/mark' ? { keepalive: true } : {};
    const response = await postText(s.fetch, url, JSON.stringify({ browser_secret: browserSecret, ...body }), init);
    if (response instanceof TidingsError) throw response;
    if (!response.ok) throw await problemError(response);
    const answer = (await readJson(response)) as { object?: unknown; counts?: TidingsInboxCounts } | null;
    if (!answer) throw protocolError('Bad inbox answer');
    const counts = answer.object === 'inbox_counts' ? (answer as TidingsInboxCounts) : answer.counts;
    if (counts) later(counts);
    return answer;
  };

  const handle: TidingsInbox = {
    list: (options) => post('', listBody(options)) as ReturnType<TidingsInbox['list']>,
    counts: () => post('/counts', {}) as ReturnType<TidingsInbox['counts']>,
    mark: (action, ids) =>
      post('/mark', ids === 'all' ? { action, all: true } : { action, ids: [...ids] }) as ReturnType<
        TidingsInbox['mark']
      >,
    status: () => s.currentStatus ?? 'connecting',
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };

  /** Reads the counts again for the subscribers: one request at a time, and one more queued behind it. */
  const refreshCounts = async () => {
    if (!listeners.size) return;
    if (refreshing) {
      refreshQueued = true;
      return;
    }
    refreshing = true;
    try {
      const counts = await handle.counts();
      if (later(counts) === counts) emit({ type: 'counts', counts });
    } catch (error) {
      if (s.phase !== Phase.Closed) report(s, error as TidingsError);
    } finally {
      refreshing = false;
      if (refreshQueued) {
        refreshQueued = false;
        void refreshCounts();
      }
    }
  };

  return {
    handle,
    updated(payload, fromServer) {
      const update = payload as TidingsInboxUpdate | null;
      if (update?.object !== 'inbox_update' || !update.counts) {
        return fromServer ? report(s, protocolError('Bad inbox event')) : undefined;
      }
      // As the server made it: its counts' version places it among the changes (inbox-list.ts).
      later(update.counts);
      emit({ type: 'update', update });
      if (fromServer) s.election?.post({ inbox: update });
    },
    notified(notification) {
      if (!listeners.size) return;
      emit({
        type: 'item',
        item: itemOf(notification, s.inboxRecipient ?? s.recipient ?? ''),
        version: notification.inbox_version ?? null,
      });
      void refreshCounts();
    },
    statusChanged(status) {
      if (status === 'open') hadOpen = true;
      const woken = waiting;
      waiting = [];
      for (const wake of woken) wake();
      emit({ type: 'status', status });
      if (status === 'open') void refreshCounts();
    },
  };
}
