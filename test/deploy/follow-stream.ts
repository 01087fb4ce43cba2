import { createParser } from 'eventsource-parser';

/**
 * A browser's event stream as a native EventSource follows it: on a dropped connection it
 * reconnects to the same URL with `Last-Event-ID` after a short wait, and stops for good on a
 * 204. It keeps every notification it received by attempt id (duplicates after a resume count
 * once), as the browser SDK does.
 */
export interface FollowedStream {
  /** Notification ids received, with the attempt each came in. */
  readonly notifications: Map<string, string>;
  readonly connections: number;
  readonly browserId: string | null;
  /** The browser's secret, from the `ready` event that registered it. */
  readonly browserSecret: string | null;
  /** The data of every `inbox` event, in the order they came. */
  readonly inboxUpdates: { counts: { unread: number; total: number; unseen: number; version: number } }[];
  /** True while a connection is open and its `ready` event was read. */
  readonly open: boolean;
  /** True once the server answered 204 or the stream was stopped. */
  readonly stopped: boolean;
  /** Waits until `predicate` holds, or fails after `timeoutMs`. */
  until(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  stop(): void;
}

export function followStream(connectUrl: string, options: { reconnect?: boolean } = {}): FollowedStream {
  const reconnect = options.reconnect ?? true;
  const notifications = new Map<string, string>();
  let lastEventId: string | null = null;
  let browserId: string | null = null;
  let browserSecret: string | null = null;
  const inboxUpdates: FollowedStream['inboxUpdates'] = [];
  let connections = 0;
  let open = false;
  let stopped = false;
  const abort = new AbortController();

  const connectOnce = async () => {
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (lastEventId) headers['Last-Event-ID'] = lastEventId;
    const response = await fetch(connectUrl, { headers, signal: abort.signal });
    if (response.status === 204) {
      stopped = true;
      return;
    }
    if (response.status !== 200 || !response.body) throw new Error(`connect answered ${response.status}`);
    connections++;
    const parser = createParser({
      onEvent: (event) => {
        if (event.id) lastEventId = event.id;
        const data = JSON.parse(event.data);
        if (event.event === 'ready') {
          browserId = data.browser_id;
          browserSecret = data.browser_secret ?? browserSecret;
          open = true;
        } else if (event.event === 'inbox') {
          inboxUpdates.push(data);
        } else if (event.event === 'notification') {
          notifications.set(data.notification_id, data.attempt_id);
        }
      },
    });
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  };

  (async () => {
    while (!stopped) {
      try {
        await connectOnce();
      } catch {
        // A dropped or refused connection: try again, as EventSource does.
      }
      open = false;
      if (!reconnect) stopped = true;
      if (!stopped) await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();

  return {
    notifications,
    get connections() {
      return connections;
    },
    get browserId() {
      return browserId;
    },
    get browserSecret() {
      return browserSecret;
    },
    inboxUpdates,
    get open() {
      return open;
    },
    get stopped() {
      return stopped;
    },
    async until(predicate, what, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop() {
      stopped = true;
      abort.abort();
    },
  };
}
