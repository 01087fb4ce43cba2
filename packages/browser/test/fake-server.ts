import type { TidingsInboxCounts, TidingsInboxItem, TidingsInboxUpdate } from '../src/inbox-types.js';
import type { TidingsNotification } from '../src/types.js';

/** A request the SDK made. */
export interface RecordedRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string | null;
  init: RequestInit;
}

const abortError = () => new DOMException('The operation was aborted.', 'AbortError');

/** One `GET /v1/connect/{token}` answered with a stream the test writes to. */
export class FakeStream {
  readonly response: Response;
  readonly request: RecordedRequest;
  /** True once the SDK aborted or the test ended the stream. */
  closed = false;
  private controller!: ReadableStreamDefaultController<Uint8Array>;

  constructor(request: RecordedRequest) {
    this.request = request;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      cancel: () => {
        this.closed = true;
      },
    });
    request.init.signal?.addEventListener('abort', () => {
      if (this.closed) return;
      this.closed = true;
      this.controller.error(abortError());
    });
    this.response = new Response(body, {
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
    });
  }

  send(text: string): void {
    if (!this.closed) this.controller.enqueue(new TextEncoder().encode(text));
  }

  ready(
    browserId: string,
    browserSecret: string | null,
    extra: { heartbeat_ms?: number; resumed?: boolean; vapid_public_key?: string | null } = {},
  ) {
    const data = {
      browser_id: browserId,
      browser_secret: browserSecret,
      recipient: 'user_1',
      heartbeat_ms: 15_000,
      resumed: false,
      ...extra,
    };
    this.send(`retry: 1000\nevent: ready\nid: ${browserId}.0\ndata: ${JSON.stringify(data)}\n\n`);
  }

  notification(id: string, notification: TidingsNotification): void {
    this.send(`event: notification\nid: ${id}\ndata: ${JSON.stringify(notification)}\n\n`);
  }

  /** An `inbox` event: it has no id, it is not replayed. */
  inbox(update: TidingsInboxUpdate): void {
    this.send(`event: inbox\ndata: ${JSON.stringify(update)}\n\n`);
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.controller.close();
  }
}

/** A notification payload with the given attempt id. */
export const notification = (attemptId: string, extra: Partial<TidingsNotification> = {}): TidingsNotification => ({
  attempt_id: attemptId,
  notification_id: `ntf_${attemptId}`,
  title: `Title ${attemptId}`,
  body: null,
  url: null,
  icon: null,
  tag: null,
  data: null,
  created_at: '2026-01-01T00:00:00Z',
  expires_at: '2026-01-02T00:00:00Z',
  ...extra,
});

export const counts = (unread = 0, version = 1, total = unread, unseen = unread): TidingsInboxCounts => ({
  object: 'inbox_counts',
  total,
  unread,
  unseen,
  version,
});

/** An inbox item with the given notification id. */
export const inboxItem = (id: string, extra: Partial<TidingsInboxItem> = {}): TidingsInboxItem => ({
  object: 'inbox_item',
  id,
  recipient: 'user_1',
  title: `Title ${id}`,
  body: null,
  url: null,
  icon: null,
  tag: null,
  data: null,
  created_at: '2026-01-01T00:00:00.000Z',
  seen_at: null,
  read_at: null,
  archived_at: null,
  ...extra,
});

/** An inbox update, as a mark answers it and the `inbox` event carries it. */
export const inboxUpdate = (extra: Partial<TidingsInboxUpdate> = {}): TidingsInboxUpdate => ({
  object: 'inbox_update',
  action: 'read',
  all: false,
  items: [],
  not_found: [],
  counts: counts(0),
  base_version: 0,
  cutoff_version: null,
  marked_at: '2026-01-01T00:00:00.000Z',
  ...extra,
});

/** A problem-details answer. */
export const problem = (status: number, code: string, headers: Record<string, string> = {}) =>
  new Response(
    JSON.stringify({ type: 'about:blank', title: code, status, detail: `${code} detail`, code, request_id: 'req_1' }),
    {
      status,
      headers: { 'content-type': 'application/problem+json', ...headers },
    },
  );

export const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

type Answer = (request: RecordedRequest) => Response | Promise<Response>;

/**
 * A Tidings server in memory, behind a `fetch`: streams the test drives, and queues of canned
 * answers per endpoint (taken first; without one, the default answer).
 */
export function createFakeServer() {
  const requests: RecordedRequest[] = [];
  const streams: FakeStream[] = [];
  const answers = {
    connect: [] as Answer[],
    poll: [] as Answer[],
    events: [] as Answer[],
    /** The three inbox endpoints (`/v1/browsers/{id}/inbox`, `/inbox/counts`, `/inbox/mark`). */
    inbox: [] as Answer[],
  };

  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input));
    const method = init.method ?? 'GET';
    const request: RecordedRequest = {
      method,
      url,
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? init.body : null,
      init,
    };
    requests.push(request);
    if (init.signal?.aborted) throw abortError();
    if (url.pathname.startsWith('/v1/connect/') && method === 'GET') {
      const answer = answers.connect.shift();
      if (answer) return answer(request);
      const stream = new FakeStream(request);
      streams.push(stream);
      return stream.response;
    }
    if (url.pathname.startsWith('/v1/connect/')) {
      const answer = answers.poll.shift();
      if (answer) return answer(request);
      return request.body
        ? json(200, { notifications: [] })
        : json(201, { browser_id: 'brw_poll', browser_secret: 'bs_poll', stream_url: `${url.origin}${url.pathname}` });
    }
    if (url.pathname === '/v1/events') {
      const answer = answers.events.shift();
      if (answer) return answer(request);
      return json(202, { accepted: (JSON.parse(request.body ?? '{}').events ?? []).length });
    }
    if (/^\/v1\/browsers\/[^/]+\/disconnect$/.test(url.pathname)) return new Response(null, { status: 204 });
    const inbox = /^\/v1\/browsers\/[^/]+\/inbox(\/counts|\/mark)?$/.exec(url.pathname);
    if (inbox && method === 'POST') {
      const answer = answers.inbox.shift();
      if (answer) return answer(request);
      if (inbox[1] === '/counts') return json(200, counts(0));
      if (inbox[1] === '/mark') return json(200, inboxUpdate({ action: JSON.parse(request.body ?? '{}').action }));
      return json(200, { object: 'list', data: [], has_more: false, counts: counts(0) });
    }
    return problem(404, 'NOT_FOUND');
  };

  return {
    fetch,
    requests,
    streams,
    answers,
    /** The stream opened last. */
    get stream(): FakeStream {
      const last = streams.at(-1);
      if (!last) throw new Error('no stream was opened');
      return last;
    },
    /** The requests to the inbox endpoints, in order: their path and JSON body. */
    inboxRequests: () =>
      requests
        .filter((request) => /\/inbox(\/|$)/.test(request.url.pathname))
        .map((request) => ({
          path: request.url.pathname,
          body: JSON.parse(request.body ?? 'null') as Record<string, unknown>,
        })),
    /** The GET connect requests, in order. */
    connects: () => requests.filter((request) => request.method === 'GET'),
    /** Every receipt posted to /v1/events, with the browser it was posted for. */
    receipts: () =>
      requests
        .filter((request) => request.url.pathname === '/v1/events')
        .flatMap((request) => {
          const body = JSON.parse(request.body ?? '{}');
          return body.events.map((event: { type: string; attempt_id: string }) => ({
            browser_id: body.browser_id,
            browser_secret: body.browser_secret,
            type: event.type,
            attempt_id: event.attempt_id,
          }));
        }),
  };
}

export type FakeServer = ReturnType<typeof createFakeServer>;
