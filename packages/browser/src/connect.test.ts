import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFakeServer, json, notification, problem } from '../test/fake-server.js';
import { memoryStorage } from '../test/memory-storage.js';
import { connect } from './connect.js';
import type { TidingsError } from './errors.js';
import type { ConnectOptions } from './options.js';
import { storageKey } from './stored-state.js';
import type { TidingsNotification, TidingsStatus, TidingsStatusDetail } from './types.js';

const baseUrl = 'https://tidings.test';

function start(overrides: Partial<ConnectOptions> = {}, server = createFakeServer(), storage = memoryStorage()) {
  const notifications: TidingsNotification[] = [];
  const statuses: [TidingsStatus, TidingsStatusDetail | undefined][] = [];
  const errors: TidingsError[] = [];
  const connection = connect({
    baseUrl,
    token: 'ct_first',
    onNotification: (item) => notifications.push(item),
    onStatus: (status, detail) => statuses.push([status, detail]),
    onError: (error) => errors.push(error),
    storage,
    fetch: server.fetch,
    environment: { host: null, random: () => 0.5 },
    ...overrides,
  });
  const statusNames = () => statuses.map(([status]) => status);
  const stored = () => JSON.parse(storage.getItem(storageKey(baseUrl)) ?? 'null');
  return { server, storage, connection, notifications, statuses, statusNames, errors, stored };
}

/** Lets fetches, stream reads and due timers run. */
const tick = (milliseconds = 0) => vi.advanceTimersByTimeAsync(milliseconds);

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('connect: streaming', () => {
  it('opens a stream, hands notifications to the app and sends delivered receipts in a batch', async () => {
    const { server, connection, notifications, statuses, stored } = start();
    await tick();
    const [request] = server.connects();
    expect(request?.url.href).toBe(`${baseUrl}/v1/connect/ct_first`);
    expect(request?.headers.get('accept')).toBe('text/event-stream');
    expect(request?.init.credentials).toBe('omit');

    server.stream.ready('brw_1', 'bs_1');
    server.stream.notification('brw_1.1', notification('att_1'));
    server.stream.notification('brw_1.2', notification('att_2'));
    await tick();
    expect(notifications.map((item) => item.attempt_id)).toEqual(['att_1', 'att_2']);
    expect(statuses).toEqual([
      ['connecting', undefined],
      ['open', { browserId: 'brw_1', resumed: false, transport: 'sse' }],
    ]);
    expect(connection.browserId()).toBe('brw_1');
    expect(stored()).toEqual({
      browser: { browserId: 'brw_1', browserSecret: 'bs_1' },
      lastEventId: 'brw_1.2',
      seen: ['att_1', 'att_2'],
    });

    await tick(50);
    const posts = server.requests.filter((request) => request.url.pathname === '/v1/events');
    expect(posts).toHaveLength(1);
    expect(posts[0]?.headers.get('content-type')).toBe('text/plain');
    expect(posts[0]?.init.keepalive).toBe(true);
    expect(JSON.parse(posts[0]?.body ?? '')).toMatchObject({
      browser_id: 'brw_1',
      browser_secret: 'bs_1',
      events: [
        { type: 'delivered', attempt_id: 'att_1', at: expect.any(String) },
        { type: 'delivered', attempt_id: 'att_2', at: expect.any(String) },
      ],
    });
    connection.close();
  });

  it('does not start before connect() returns', () => {
    const { statuses, server } = start();
    expect(statuses).toEqual([]);
    expect(server.requests).toEqual([]);
  });

  it('reconnects after the stream ends, resuming by query, keeping the secret, dropping duplicates', async () => {
    const { server, notifications, statusNames, connection } = start();
    await tick();
    server.stream.ready('brw_1', 'bs_1');
    server.stream.notification('brw_1.1', notification('att_1'));
    await tick();
    server.stream.end();
    await tick();
    expect(statusNames()).toEqual(['connecting', 'open', 'reconnecting']);

    await tick(1000);
    expect(server.connects()[1]?.url.search).toBe('?last_event_id=brw_1.1');
    expect(server.connects()[1]?.headers.has('last-event-id')).toBe(false); // no preflight
    server.stream.ready('brw_1', null, { resumed: true });
    server.stream.notification('brw_1.1', notification('att_1')); // not final yet: sent again
    server.stream.notification('brw_1.2', notification('att_2'));
    await tick(50);
    expect(notifications.map((item) => item.attempt_id)).toEqual(['att_1', 'att_2']);
    expect(server.receipts().map((receipt) => [receipt.attempt_id, receipt.browser_secret])).toEqual([
      ['att_1', 'bs_1'],
      ['att_1', 'bs_1'], // the duplicate's receipt goes again: the first one evidently did not land
      ['att_2', 'bs_1'],
    ]);
    expect(statusNames().at(-1)).toBe('open');
    connection.close();
  });

  it('switches to the new browser when the server could not resume the old one', async () => {
    const { server, connection, stored } = start();
    await tick();
    server.stream.ready('brw_1', 'bs_1');
    await tick();
    server.stream.end();
    await tick(1000);
    server.stream.ready('brw_2', 'bs_2', { resumed: false });
    server.stream.notification('brw_2.1', notification('att_9'));
    await tick(50);
    expect(connection.browserId()).toBe('brw_2');
    expect(stored()).toMatchObject({ browser: { browserId: 'brw_2', browserSecret: 'bs_2' }, lastEventId: 'brw_2.1' });
    expect(server.receipts()).toMatchObject([{ browser_id: 'brw_2', browser_secret: 'bs_2', attempt_id: 'att_9' }]);
    connection.close();
  });

  it('starts anew when a resume comes back without a secret the SDK knows', async () => {
    const { server, errors, connection } = start();
    await tick();
    server.stream.ready('brw_1', null, { resumed: true });
    await tick();
    expect(errors.map((error) => error.code)).toEqual(['PROTOCOL_ERROR']);
    await tick(1000);
    expect(server.connects()[1]?.url.search).toBe('');
    connection.close();
  });

  it('resumes the same browser after a reload, without handing seen notifications again', async () => {
    const storage = memoryStorage();
    const first = start({}, createFakeServer(), storage);
    await tick();
    first.server.stream.ready('brw_1', 'bs_1');
    first.server.stream.notification('brw_1.3', notification('att_1'));
    await tick();
    first.connection.close(); // the page unloads

    const second = start({}, createFakeServer(), storage);
    await tick();
    expect(second.server.connects()[0]?.url.search).toBe('?last_event_id=brw_1.3');
    second.server.stream.ready('brw_1', null, { resumed: true });
    second.server.stream.notification('brw_1.3', notification('att_1'));
    second.server.stream.notification('brw_1.4', notification('att_2'));
    await tick(50);
    expect(second.notifications.map((item) => item.attempt_id)).toEqual(['att_2']);
    expect(second.statuses[1]).toEqual(['open', { browserId: 'brw_1', resumed: true, transport: 'sse' }]);
    expect(second.server.receipts().map((receipt) => receipt.browser_secret)).toEqual(['bs_1', 'bs_1']);
    second.connection.close();
  });

  it('ignores unknown events and keeps going after a malformed notification', async () => {
    const { server, notifications, errors, connection } = start();
    await tick();
    server.stream.ready('brw_1', 'bs_1');
    server.stream.send('event: future\ndata: {}\n\nevent: notification\ndata: not json\n\n');
    server.stream.notification('brw_1.1', notification('att_1'));
    await tick();
    expect(notifications).toHaveLength(1);
    expect(errors.map((error) => error.code)).toEqual(['PROTOCOL_ERROR']);
    connection.close();
  });

  it('survives an app callback that throws', async () => {
    const { server, connection } = start({
      onNotification: (item) => {
        if (item.attempt_id === 'att_1') throw new Error('app bug');
      },
    });
    await tick();
    server.stream.ready('brw_1', 'bs_1');
    server.stream.notification('brw_1.1', notification('att_1'));
    await expect(tick()).rejects.toThrow('app bug'); // rethrown from a timer, as an uncaught error
    server.stream.notification('brw_1.2', notification('att_2'));
    await tick(50);
    expect(server.receipts().map((receipt) => receipt.attempt_id)).toEqual(['att_1', 'att_2']);
    connection.close();
  });
});

describe('connect: failures', () => {
  it('calls getToken once on 401 and reconnects with the new token', async () => {
    const server = createFakeServer();
    server.answers.connect.push(() => problem(401, 'UNAUTHORIZED'));
    const getToken = vi.fn(async () => 'ct_second');
    const { statusNames, connection } = start({ getToken }, server);
    await tick();
    expect(getToken).toHaveBeenCalledTimes(1);
    expect(server.connects().map((request) => request.url.pathname)).toEqual([
      '/v1/connect/ct_first',
      '/v1/connect/ct_second',
    ]);
    server.stream.ready('brw_1', 'bs_1');
    await tick();
    expect(statusNames()).toEqual(['connecting', 'open']);
    connection.close();
  });

  it('asks getToken first when there is no token', async () => {
    const server = createFakeServer();
    const { connection } = start({ token: undefined, getToken: async () => 'ct_fetched' }, server);
    await tick();
    expect(server.connects()[0]?.url.pathname).toBe('/v1/connect/ct_fetched');
    connection.close();
  });

  it('stops with an error when the new token is refused too', async () => {
    const server = createFakeServer();
    server.answers.connect.push(
      () => problem(401, 'UNAUTHORIZED'),
      () => problem(401, 'UNAUTHORIZED'),
    );
    const getToken = vi.fn(async () => 'ct_second');
    const { statuses, errors } = start({ getToken }, server);
    await tick(60_000);
    expect(getToken).toHaveBeenCalledTimes(1);
    expect(server.connects()).toHaveLength(2);
    expect(statuses.at(-1)).toMatchObject([
      'closed',
      { reason: 'error', error: { code: 'UNAUTHORIZED', status: 401 } },
    ]);
    expect(errors).toMatchObject([{ code: 'UNAUTHORIZED', fatal: true, requestId: 'req_1' }]);
  });

  it('stops with TOKEN_FAILED when getToken throws', async () => {
    const server = createFakeServer();
    server.answers.connect.push(() => problem(401, 'UNAUTHORIZED'));
    const { statuses } = start({ getToken: () => Promise.reject(new Error('back end down')) }, server);
    await tick();
    expect(statuses.at(-1)).toMatchObject([
      'closed',
      { reason: 'error', error: { code: 'TOKEN_FAILED', fatal: true } },
    ]);
  });

  it('stops on 401 without getToken', async () => {
    const server = createFakeServer();
    server.answers.connect.push(() => problem(401, 'UNAUTHORIZED'));
    const { statuses } = start({}, server);
    await tick(60_000);
    expect(server.connects()).toHaveLength(1);
    expect(statuses.at(-1)).toMatchObject(['closed', { reason: 'error', error: { code: 'UNAUTHORIZED' } }]);
  });

  it('tells a 401 that did not come from Tidings (no problem details) from one Tidings answered', async () => {
    const server = createFakeServer();
    // The app's own authentication in front of the stream, answering 401 by itself.
    server.answers.connect.push(
      () => new Response('Unauthorized', { status: 401, headers: { 'content-type': 'text/plain' } }),
    );
    const { statuses } = start({}, server);
    await tick(60_000);
    expect(server.connects()).toHaveLength(1);
    const [, detail] = statuses.at(-1)!;
    expect(detail).toMatchObject({ reason: 'error', error: { code: 'EXTERNAL_ERROR', status: 401, fatal: true } });
    expect(detail?.error?.message).toBe('HTTP 401');
    expect(String(detail?.error)).toBe('TidingsError: HTTP 401');
  });

  it('stops on 403 PROJECT_SUSPENDED and keeps the stored browser', async () => {
    const storage = memoryStorage();
    storage.setItem(
      storageKey(baseUrl),
      JSON.stringify({ browser: { browserId: 'brw_1', browserSecret: 'bs_1' }, lastEventId: 'brw_1.2', seen: [] }),
    );
    const server = createFakeServer();
    server.answers.connect.push(() => problem(403, 'PROJECT_SUSPENDED'));
    const { statuses, stored } = start({}, server, storage);
    await tick(60_000);
    expect(server.connects()).toHaveLength(1);
    expect(statuses.at(-1)).toMatchObject([
      'closed',
      { reason: 'error', error: { code: 'PROJECT_SUSPENDED', status: 403 } },
    ]);
    expect(stored()).toMatchObject({ browser: { browserId: 'brw_1' } });
  });

  it('waits out Retry-After on 429 (plus under a second of jitter)', async () => {
    const server = createFakeServer();
    server.answers.connect.push(() => problem(429, 'RATE_LIMITED', { 'retry-after': '7' }));
    const { statuses, errors, connection } = start({}, server);
    await tick();
    expect(statuses.at(-1)).toMatchObject([
      'reconnecting',
      { attempt: 1, delayMs: 7500, error: { code: 'RATE_LIMITED' } },
    ]);
    expect(errors[0]?.fatal).toBe(false);
    await tick(7499);
    expect(server.connects()).toHaveLength(1);
    await tick(1);
    expect(server.connects()).toHaveLength(2);
    connection.close();
  });

  it('stops for good on 204 (disconnected elsewhere) and forgets the browser', async () => {
    const storage = memoryStorage();
    storage.setItem(
      storageKey(baseUrl),
      JSON.stringify({ browser: { browserId: 'brw_1', browserSecret: 'bs_1' }, lastEventId: 'brw_1.2', seen: [] }),
    );
    const server = createFakeServer();
    server.answers.connect.push(() => new Response(null, { status: 204 }));
    const { statuses, errors, connection } = start({}, server, storage);
    await tick(60_000);
    expect(server.connects()).toHaveLength(1);
    expect(statuses.at(-1)).toEqual(['closed', { reason: 'disconnected', error: undefined }]);
    expect(errors).toEqual([]);
    expect(storage.length).toBe(0);
    expect(connection.browserId()).toBeNull();
  });

  it('backs off with growing delays on network errors and 5xx, and resets after a healthy open', async () => {
    const server = createFakeServer();
    const down = () => Promise.reject(new TypeError('Failed to fetch'));
    server.answers.connect.push(down, () => problem(503, 'INTERNAL_ERROR'), down);
    const { statuses, connection } = start({}, server);
    await tick(10_000);
    const delays = statuses.filter(([status]) => status === 'reconnecting').map(([, detail]) => detail?.delayMs);
    expect(delays).toEqual([500, 1000, 2000]); // random() = 0.5 of 1 s, 2 s, 4 s
    server.stream.ready('brw_1', 'bs_1');
    await tick(10_000); // a healthy open
    server.stream.end();
    await tick();
    expect(statuses.at(-1)).toMatchObject(['reconnecting', { attempt: 1, delayMs: 500 }]);
    connection.close();
  });

  it('keeps growing the backoff when each connection dies at once', async () => {
    const server = createFakeServer();
    const { statuses, connection } = start({}, server);
    for (let round = 0; round < 4; round++) {
      await tick(30_000);
      server.stream.ready('brw_1', 'bs_1');
      server.stream.end();
    }
    await tick();
    const attempts = statuses.filter(([status]) => status === 'reconnecting').map(([, detail]) => detail?.attempt);
    expect(attempts).toEqual([1, 2, 3, 4]);
    connection.close();
  });

  it('retries an answer that is not an event stream (a captive portal)', async () => {
    const server = createFakeServer();
    server.answers.connect.push(
      () => new Response('<html>', { status: 200, headers: { 'content-type': 'text/html' } }),
    );
    const { errors, connection } = start({}, server);
    await tick(1000);
    expect(errors.map((error) => error.code)).toEqual(['PROTOCOL_ERROR']);
    expect(server.connects()).toHaveLength(2);
    connection.close();
  });
});

describe('connect: watchdog and page lifecycle', () => {
  it('reconnects when nothing arrives for 2.5 heartbeats', async () => {
    const { server, errors, connection } = start();
    await tick();
    server.stream.ready('brw_1', 'bs_1', { heartbeat_ms: 1000 });
    await tick(2000);
    server.stream.send(': ping\n\n');
    await tick(2000);
    expect(server.connects()).toHaveLength(1); // the heartbeat kept it alive
    await tick(500);
    expect(errors.map((error) => error.code)).toEqual(['STREAM_STALLED']);
    expect(server.streams[0]?.closed).toBe(true);
    await tick(1000);
    expect(server.connects()).toHaveLength(2);
    connection.close();
  });

  it('falls back to polling in auto mode when the stream stalls before its first event twice', async () => {
    const { server, statuses, connection } = start();
    await tick(37_500);
    await tick(1000);
    expect(server.connects()).toHaveLength(2);
    await tick(37_500);
    await tick(2000);
    const polls = server.requests.filter((request) => request.method === 'POST');
    expect(polls.map((request) => request.body)).toEqual([
      null,
      JSON.stringify({ browser_id: 'brw_poll', browser_secret: 'bs_poll' }),
    ]);
    expect(statuses.find(([status]) => status === 'open')).toEqual([
      'open',
      { browserId: 'brw_poll', resumed: false, transport: 'poll' },
    ]);
    connection.close();
  });

  it('keeps streaming in sse mode however often the stream stalls', async () => {
    const { server, connection } = start({ transport: 'sse' });
    await tick(200_000);
    expect(server.requests.every((request) => request.method === 'GET')).toBe(true);
    connection.close();
  });

  it('reconnects at once when a hidden tab becomes visible with a dead stream', async () => {
    const host = fakeHost();
    const { server, connection } = start({ environment: { host, random: () => 0.5 } });
    await tick();
    server.stream.ready('brw_1', 'bs_1', { heartbeat_ms: 15_000 });
    await tick();
    // A frozen tab: no timer ran, but the clock moved on.
    vi.setSystemTime(Date.now() + 60_000);
    host.document.visibilityState = 'visible';
    host.document.dispatchEvent(new Event('visibilitychange'));
    await tick();
    expect(server.connects()).toHaveLength(2);
    connection.close();
  });

  it('ends a backoff wait when the network comes back', async () => {
    const host = fakeHost();
    const server = createFakeServer();
    server.answers.connect.push(() => Promise.reject(new TypeError('offline')));
    const { connection } = start({ environment: { host, random: () => 0.5 } }, server);
    await tick();
    expect(server.connects()).toHaveLength(1);
    host.dispatchEvent(new Event('online'));
    await tick();
    expect(server.connects()).toHaveLength(2);
    connection.close();
  });

  it('pauses on pagehide and resumes on a back/forward-cache pageshow', async () => {
    const host = fakeHost();
    const { server, connection } = start({ environment: { host, random: () => 0.5 } });
    await tick();
    server.stream.ready('brw_1', 'bs_1');
    await tick();
    host.dispatchEvent(new Event('pagehide'));
    await tick(120_000);
    expect(server.stream.closed).toBe(true);
    expect(server.connects()).toHaveLength(1);
    host.dispatchEvent(Object.assign(new Event('pageshow'), { persisted: true }));
    await tick();
    expect(server.connects()).toHaveLength(2);
    expect(server.connects()[1]?.url.search).toBe('?last_event_id=brw_1.0');
    connection.close();
  });
});

describe('connect: polling', () => {
  it('registers, then polls every pollIntervalMs and delivers what the poll returns', async () => {
    const server = createFakeServer();
    server.answers.poll.push(
      () => json(201, { browser_id: 'brw_p', browser_secret: 'bs_p', stream_url: 'x' }),
      () => json(200, { notifications: [notification('att_1')] }),
      () => json(200, { notifications: [notification('att_1'), notification('att_2')] }),
    );
    const { notifications, statuses, connection } = start({ transport: 'poll', pollIntervalMs: 5000 }, server);
    await tick();
    expect(notifications.map((item) => item.attempt_id)).toEqual(['att_1']);
    await tick(5000);
    expect(notifications.map((item) => item.attempt_id)).toEqual(['att_1', 'att_2']);
    const polls = server.requests.filter((request) => request.url.pathname === '/v1/connect/ct_first');
    expect(polls.map((request) => request.method)).toEqual(['POST', 'POST', 'POST']);
    expect(polls[1]?.body).toBe(JSON.stringify({ browser_id: 'brw_p', browser_secret: 'bs_p' }));
    expect(statuses.map(([status]) => status)).toEqual(['connecting', 'open']);
    await tick(50);
    expect(server.receipts().map((receipt) => receipt.attempt_id)).toEqual(['att_1', 'att_1', 'att_2']);
    connection.close();
  });

  it('takes the new browser when the server answers a poll with a registration', async () => {
    const storage = memoryStorage();
    storage.setItem(
      storageKey(baseUrl),
      JSON.stringify({ browser: { browserId: 'brw_stale', browserSecret: 'bs_stale' }, lastEventId: '', seen: [] }),
    );
    const server = createFakeServer();
    server.answers.poll.push(() => json(201, { browser_id: 'brw_new', browser_secret: 'bs_new', stream_url: 'x' }));
    const { connection, errors, stored } = start({ transport: 'poll' }, server, storage);
    await tick();
    const polls = server.requests.filter((request) => request.method === 'POST');
    expect(polls.map((request) => request.body && JSON.parse(request.body).browser_id)).toEqual([
      'brw_stale',
      'brw_new',
    ]);
    expect(polls[0]?.headers.get('content-type')).toBe('text/plain');
    expect(errors).toEqual([]);
    expect(stored()).toMatchObject({ browser: { browserId: 'brw_new', browserSecret: 'bs_new' } });
    connection.close();
  });

  it('stops as disconnected when a poll is answered 204', async () => {
    const storage = memoryStorage();
    storage.setItem(
      storageKey(baseUrl),
      JSON.stringify({ browser: { browserId: 'brw_1', browserSecret: 'bs_1' }, lastEventId: '', seen: [] }),
    );
    const server = createFakeServer();
    server.answers.poll.push(() => new Response(null, { status: 204 }));
    const { statuses } = start({ transport: 'poll' }, server, storage);
    await tick(60_000);
    expect(statuses.at(-1)).toEqual(['closed', { reason: 'disconnected', error: undefined }]);
    expect(storage.length).toBe(0);
  });

  it('registers a new browser when a poll with the old one is refused twice', async () => {
    const storage = memoryStorage();
    storage.setItem(
      storageKey(baseUrl),
      JSON.stringify({ browser: { browserId: 'brw_old', browserSecret: 'bs_old' }, lastEventId: '', seen: [] }),
    );
    const server = createFakeServer();
    server.answers.poll.push(
      () => problem(401, 'UNAUTHORIZED'),
      () => problem(401, 'UNAUTHORIZED'),
    );
    const { connection } = start({ transport: 'poll', getToken: async () => 'ct_second' }, server, storage);
    await tick();
    const polls = server.requests.filter((request) => request.method === 'POST');
    expect(polls.map((request) => [request.url.pathname, request.body && JSON.parse(request.body).browser_id])).toEqual(
      [
        ['/v1/connect/ct_first', 'brw_old'],
        ['/v1/connect/ct_second', 'brw_old'],
        ['/v1/connect/ct_second', null],
        ['/v1/connect/ct_second', 'brw_poll'],
      ],
    );
    expect(connection.browserId()).toBe('brw_poll');
    connection.close();
  });
});

describe('connect: the handle', () => {
  it('disconnect() beacons the secret, closes and forgets the browser', async () => {
    const host = fakeHost();
    const { server, connection, statuses, storage } = start({ environment: { host, random: () => 0.5 } });
    await tick();
    server.stream.ready('brw_1', 'bs_1');
    await tick();
    connection.disconnect();
    expect(host.beacons).toEqual([[`${baseUrl}/v1/browsers/brw_1/disconnect`, '{"browser_secret":"bs_1"}']]);
    expect(statuses.at(-1)).toEqual(['closed', { reason: 'disconnect', error: undefined }]);
    expect(storage.length).toBe(0);
    expect(connection.browserId()).toBeNull();
    await tick();
    expect(server.stream.closed).toBe(true);
  });

  it('disconnect() falls back to a keepalive fetch without sendBeacon', async () => {
    const { server, connection } = start();
    await tick();
    server.stream.ready('brw_1', 'bs_1');
    await tick();
    connection.disconnect();
    await tick();
    const request = server.requests.find((item) => item.url.pathname.endsWith('/disconnect'));
    expect(request).toMatchObject({ method: 'POST', body: '{"browser_secret":"bs_1"}', init: { keepalive: true } });
    expect(request?.headers.get('content-type')).toBe('text/plain');
  });

  it('close() keeps the stored browser so that the next connect resumes it', async () => {
    const { server, connection, statuses, stored } = start();
    await tick();
    server.stream.ready('brw_1', 'bs_1');
    await tick();
    connection.close();
    await tick();
    expect(statuses.at(-1)).toEqual(['closed', { reason: 'close', error: undefined }]);
    expect(stored()).toMatchObject({ browser: { browserId: 'brw_1', browserSecret: 'bs_1' } });
    expect(server.stream.closed).toBe(true);
    await tick(60_000);
    expect(server.connects()).toHaveLength(1);
  });

  it('sends displayed, clicked and dismissed receipts through the batcher', async () => {
    const { server, connection } = start({ autoDelivered: false });
    await tick();
    server.stream.ready('brw_1', 'bs_1');
    server.stream.notification('brw_1.1', notification('att_1'));
    await tick(50);
    expect(server.receipts()).toEqual([]);
    connection.delivered('att_1');
    connection.displayed('att_1');
    connection.clicked('att_1');
    connection.dismissed('att_1');
    await tick(50);
    expect(server.receipts().map((receipt) => receipt.type)).toEqual([
      'delivered',
      'displayed',
      'clicked',
      'dismissed',
    ]);
    expect(() => connection.clicked('')).toThrow(TypeError);
    connection.close();
  });

  it('shows system notifications when permitted: click sends clicked and opens only http(s) urls', async () => {
    const host = fakeHost('granted');
    const { server, connection } = start({ systemNotifications: true, environment: { host, random: () => 0.5 } });
    await tick();
    server.stream.ready('brw_1', 'bs_1');
    server.stream.notification('brw_1.1', notification('att_1', { url: '/inbox/1', tag: 't' }));
    server.stream.notification('brw_1.2', notification('att_2', { url: 'javascript:alert(1)' }));
    await tick();
    expect(host.shown.map((shown) => [shown.title, shown.options.tag])).toEqual([
      ['Title att_1', 't'],
      ['Title att_2', undefined],
    ]);
    for (const shown of host.shown) {
      shown.onshow?.();
      shown.onclick?.(new Event('click'));
    }
    await tick(50);
    expect(host.opened).toEqual([['https://app.test/inbox/1', '_blank', 'noopener']]);
    expect(server.receipts().map((receipt) => `${receipt.type}:${receipt.attempt_id}`)).toEqual([
      'delivered:att_1',
      'delivered:att_2',
      'displayed:att_1',
      'clicked:att_1',
      'displayed:att_2',
      'clicked:att_2',
    ]);
    connection.close();
  });

  it('shows nothing without permission', async () => {
    const host = fakeHost('default');
    const { server, connection, notifications } = start({ systemNotifications: true, environment: { host } });
    await tick();
    server.stream.ready('brw_1', 'bs_1');
    server.stream.notification('brw_1.1', notification('att_1'));
    await tick();
    expect(notifications).toHaveLength(1);
    expect(host.shown).toEqual([]);
    connection.close();
  });

  it('throws a TypeError on a misuse, at once', () => {
    const base = { baseUrl, token: 'ct_1', onNotification: () => {} };
    expect(() => connect({ ...base, onNotification: undefined as never })).toThrow(/onNotification/);
    expect(() => connect({ ...base, baseUrl: 'tidings.test' })).toThrow(/baseUrl/);
    expect(() => connect({ ...base, token: undefined })).toThrow(/getToken/);
    expect(() => connect({ ...base, transport: 'ws' as never })).toThrow(/transport/);
    expect(() => connect({ ...base, pollIntervalMs: 10 })).toThrow(/pollIntervalMs/);
  });
});

interface ShownNotification {
  title: string;
  options: NotificationOptions;
  onshow: (() => void) | null;
  onclick: ((event: Event) => void) | null;
  close(): void;
}

/** A page: events, visibility, sendBeacon, Notification, open. */
function fakeHost(permission: NotificationPermission = 'default') {
  const shown: ShownNotification[] = [];
  const opened: unknown[][] = [];
  const beacons: [string, string][] = [];
  const FakeNotification = class {
    static permission = permission;
    onshow: (() => void) | null = null;
    onclick: ((event: Event) => void) | null = null;
    constructor(
      readonly title: string,
      readonly options: NotificationOptions = {},
    ) {
      shown.push(this);
    }
    close() {}
  };
  const document = Object.assign(new EventTarget(), { visibilityState: 'hidden' });
  return Object.assign(new EventTarget(), {
    document,
    shown,
    opened,
    beacons,
    location: { href: 'https://app.test/page' },
    navigator: {
      sendBeacon: (url: string, data: string) => {
        beacons.push([url, data]);
        return true;
      },
    },
    Notification: FakeNotification as unknown as typeof Notification,
    open: (...args: unknown[]) => opened.push(args),
    focus: () => {},
  });
}
