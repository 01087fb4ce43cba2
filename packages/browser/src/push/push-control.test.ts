import 'fake-indexeddb/auto';
import { describe, expect, it, vi } from 'vitest';
import { fakePlatform, newVapidKey } from '../../test/fake-push.js';
import { createFakeServer, json, notification, problem, type RecordedRequest } from '../../test/fake-server.js';
import { fakeBroadcastChannel, fakeLocks } from '../../test/fake-tabs.js';
import { memoryStorage } from '../../test/memory-storage.js';
import { connect } from '../connect.js';
import type { TidingsError } from '../errors.js';
import { readPushBrowser, wasAttemptShown } from './push-db.js';

const baseUrl = 'https://tidings.test';

const savedSubscription = (browserId: string) => ({
  object: 'push_subscription',
  browser_id: browserId,
  endpoint_host: 'push.example.net',
  created_at: '2026-11-25T08:00:00.000Z',
  updated_at: '2026-11-25T08:00:00.000Z',
  expires_at: null,
});

/** A connection on the fake server, with the push-subscription endpoint answered here. */
function start(platform = fakePlatform(), storage = memoryStorage()) {
  const server = createFakeServer();
  const pushRequests: RecordedRequest[] = [];
  const pushAnswers: Response[] = [];
  const errors: TidingsError[] = [];
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input));
    const match = /^\/v1\/browsers\/([^/]+)\/push-subscription$/.exec(url.pathname);
    if (!match) return server.fetch(input, init);
    const method = init.method ?? 'GET';
    pushRequests.push({ method, url, headers: new Headers(init.headers), body: String(init.body), init });
    return (
      pushAnswers.shift() ??
      (method === 'PUT'
        ? json(200, savedSubscription(decodeURIComponent(match[1]!)))
        : new Response(null, { status: 204 }))
    );
  };
  const connection = connect({
    baseUrl,
    token: 'ct_push',
    onNotification: () => {},
    onError: (error) => errors.push(error),
    storage,
    fetch,
    environment: { host: platform.host, random: () => 0.5 },
  });
  const puts = () => pushRequests.filter((request) => request.method === 'PUT');
  return { server, connection, platform, pushRequests, pushAnswers, puts, errors, storage };
}

/** Lets the stream's bytes and the IndexedDB requests run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

async function opened(vapidKey: string | null, browserId = 'brw_1') {
  const setup = start();
  await settle();
  setup.server.stream.ready(browserId, `bs_${browserId}`, { vapid_public_key: vapidKey });
  await settle();
  return setup;
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('resolved');
    },
    (error: TidingsError) => error,
  );

describe('enablePush', () => {
  it('asks permission, subscribes with the connect answer’s key, stores the browser for the worker and sends the subscription', async () => {
    const vapidKey = newVapidKey();
    const { connection, platform, pushRequests } = await opened(vapidKey);
    expect(platform.calls).toEqual([]); // connecting alone never asks

    const saved = await connection.enablePush();
    expect(saved).toEqual(savedSubscription('brw_1'));
    expect(platform.calls).toEqual([
      'requestPermission',
      'register /tidings-sw.js',
      'subscribe https://push.example.net/send/1',
    ]);
    expect(platform.subscription()?.options.userVisibleOnly).toBe(true);
    expect(Buffer.from(platform.subscription()!.options.applicationServerKey).toString('base64url')).toBe(vapidKey);
    expect(await readPushBrowser(platform.indexedDB, 'brw_1')).toEqual({
      browserId: 'brw_1',
      browserSecret: 'bs_brw_1',
      baseUrl,
    });
    expect(pushRequests).toHaveLength(1);
    expect(pushRequests[0]?.url.href).toBe(`${baseUrl}/v1/browsers/brw_1/push-subscription`);
    expect(pushRequests[0]?.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(pushRequests[0]?.body ?? '')).toEqual({
      browser_secret: 'bs_brw_1',
      endpoint: 'https://push.example.net/send/1',
      keys: { p256dh: 'BPublicKey', auth: 'authSecret' },
      expiration_time: null,
    });
    connection.close();
  });

  it('takes the worker’s URL and scope, and reuses a subscription made with the same key', async () => {
    const vapidKey = newVapidKey();
    const { connection, platform } = await opened(vapidKey);
    platform.subscribeEarlier(vapidKey);
    await connection.enablePush({ serviceWorker: '/static/sw.js', scope: '/static/' });
    expect(platform.calls).toEqual(['requestPermission', 'register /static/sw.js /static/']);
    connection.close();
  });

  it('replaces a subscription made with another key (a key rotation)', async () => {
    const vapidKey = newVapidKey();
    const { connection, platform } = await opened(vapidKey);
    platform.subscribeEarlier(newVapidKey());
    await connection.enablePush();
    expect(platform.calls.slice(2)).toEqual([
      'unsubscribe https://push.example.net/send/1',
      'subscribe https://push.example.net/send/2',
    ]);
    connection.close();
  });

  it('rejects with a code of its own, without asking, where push cannot work', async () => {
    const off = await opened(null);
    expect((await rejection(off.connection.enablePush())).code).toBe('PUSH_NOT_CONFIGURED');
    expect(off.platform.calls).toEqual([]);
    off.connection.close();

    const before = start();
    expect((await rejection(before.connection.enablePush())).code).toBe('NOT_CONNECTED');
    before.connection.close();

    const platform = fakePlatform();
    delete platform.host.PushManager;
    const unsupported = start(platform);
    await settle();
    unsupported.server.stream.ready('brw_1', 'bs_1', { vapid_public_key: newVapidKey() });
    await settle();
    expect((await rejection(unsupported.connection.enablePush())).code).toBe('PUSH_UNSUPPORTED');
    expect(platform.calls).toEqual([]);
    unsupported.connection.close();

    const denied = start(fakePlatform({ answer: 'denied' }));
    await settle();
    denied.server.stream.ready('brw_1', 'bs_1', { vapid_public_key: newVapidKey() });
    await settle();
    expect((await rejection(denied.connection.enablePush())).code).toBe('PUSH_DENIED');
    expect(denied.platform.calls).toEqual(['requestPermission']);
    expect(denied.pushRequests).toEqual([]);
    denied.connection.close();

    await expect(off.connection.enablePush({ serviceWorker: 42 as unknown as string })).rejects.toThrow(TypeError);
  });

  it('rejects with the server’s problem, and remembers nothing', async () => {
    const { connection, pushAnswers, server, puts } = await opened(newVapidKey());
    pushAnswers.push(problem(422, 'PUSH_ENDPOINT_NOT_ALLOWED'));
    const error = await rejection(connection.enablePush());
    expect([error.code, error.status, error.requestId]).toEqual(['PUSH_ENDPOINT_NOT_ALLOWED', 422, 'req_1']);
    // A new browser later: nothing was enabled, so nothing is sent for it.
    server.stream.end();
    await vi.waitFor(() => expect(server.streams).toHaveLength(2), { timeout: 5000 });
    server.stream.ready('brw_2', 'bs_brw_2', { vapid_public_key: newVapidKey() });
    await settle();
    expect(puts()).toHaveLength(1);
    connection.close();
  });
});

describe('a push subscription over time', () => {
  it('is sent again for a new browser and for a new key, without asking again', async () => {
    const first = newVapidKey();
    const { connection, platform, server, puts } = await opened(first);
    await connection.enablePush();

    // The server no longer knew the browser: the next stream starts a new one.
    server.stream.end();
    await vi.waitFor(() => expect(server.streams).toHaveLength(2), { timeout: 5000 });
    server.stream.ready('brw_2', 'bs_brw_2', { vapid_public_key: first });
    await vi.waitFor(() => expect(puts()).toHaveLength(2));
    expect(puts()[1]?.url.pathname).toBe('/v1/browsers/brw_2/push-subscription');
    expect(JSON.parse(puts()[1]?.body ?? '').browser_secret).toBe('bs_brw_2');
    await vi.waitFor(async () => expect(await readPushBrowser(platform.indexedDB, 'brw_1')).toBeNull());
    expect(await readPushBrowser(platform.indexedDB, 'brw_2')).not.toBeNull();

    // The server's key was rotated: the resumed browser subscribes anew with the new key.
    const second = newVapidKey();
    server.stream.end();
    await vi.waitFor(() => expect(server.streams).toHaveLength(3), { timeout: 5000 });
    server.stream.ready('brw_2', null, { vapid_public_key: second, resumed: true });
    await vi.waitFor(() => expect(puts()).toHaveLength(3));
    expect(Buffer.from(platform.subscription()!.options.applicationServerKey).toString('base64url')).toBe(second);
    expect(platform.calls.filter((call) => call === 'requestPermission')).toHaveLength(1);
    connection.close();
  });
});

describe('disablePush', () => {
  it('removes the subscription from the server, unsubscribes and forgets what the worker kept', async () => {
    const { connection, platform, pushRequests, server, puts } = await opened(newVapidKey());
    await connection.enablePush();
    await connection.disablePush();
    const removal = pushRequests.at(-1);
    expect(removal?.method).toBe('DELETE');
    expect(removal?.url.pathname).toBe('/v1/browsers/brw_1/push-subscription');
    expect(JSON.parse(removal?.body ?? '')).toEqual({ browser_secret: 'bs_brw_1' });
    expect(platform.subscription()).toBeNull();
    expect(await readPushBrowser(platform.indexedDB, 'brw_1')).toBeNull();

    // Off stays off: a new browser is not subscribed.
    server.stream.end();
    await vi.waitFor(() => expect(server.streams).toHaveLength(2), { timeout: 5000 });
    server.stream.ready('brw_2', 'bs_brw_2', { vapid_public_key: newVapidKey() });
    await settle();
    expect(puts()).toHaveLength(1);
    connection.close();
  });

  it('turns push off in the browser even when the server refuses, then rejects with its error', async () => {
    const { connection, platform, pushAnswers } = await opened(newVapidKey());
    await connection.enablePush();
    pushAnswers.push(problem(503, 'INTERNAL_ERROR'));
    expect((await rejection(connection.disablePush())).status).toBe(503);
    expect(platform.subscription()).toBeNull();
    expect(await readPushBrowser(platform.indexedDB, 'brw_1')).toBeNull();
    connection.close();
  });

  it('disconnect() forgets the browser the worker kept', async () => {
    const { connection, platform } = await opened(newVapidKey());
    await connection.enablePush();
    connection.disconnect();
    await vi.waitFor(async () => expect(await readPushBrowser(platform.indexedDB, 'brw_1')).toBeNull());
  });
});

describe('an attempt handed to the page', () => {
  it('is noted for the service worker once notifications are allowed, and not before', async () => {
    const { connection, platform, server } = await opened(newVapidKey());
    server.stream.notification('brw_1.1', notification('att_before'));
    await settle();
    expect(await platform.indexedDB.databases()).toEqual([]); // a page without push creates nothing

    await connection.enablePush();
    server.stream.notification('brw_1.2', notification('att_after'));
    await vi.waitFor(async () => expect(await wasAttemptShown(platform.indexedDB, 'att_after')).toBe(true));
    expect(await wasAttemptShown(platform.indexedDB, 'att_before')).toBe(false);
    connection.close();
  });
});

describe('tabs that share one connection', () => {
  it('lets a follower tab enable push for the browser the leader holds, with the key it relayed', async () => {
    const platform = fakePlatform();
    Object.assign(platform.host, {
      navigator: { ...platform.host.navigator, locks: fakeLocks() },
      BroadcastChannel: fakeBroadcastChannel(),
    });
    const server = createFakeServer();
    const puts: RecordedRequest[] = [];
    const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const url = new URL(String(input));
      if (!url.pathname.endsWith('/push-subscription')) return server.fetch(input, init);
      puts.push({
        method: init.method ?? 'GET',
        url,
        headers: new Headers(init.headers),
        body: String(init.body),
        init,
      });
      return json(200, savedSubscription('brw_leader'));
    };
    const tab = () =>
      connect({
        baseUrl,
        recipient: 'user_1',
        getToken: async () => 'ct_tab',
        onNotification: () => {},
        storage: memoryStorage(),
        fetch,
        environment: { host: platform.host, random: () => 0.5 },
      });
    const leader = tab();
    await settle();
    const vapidKey = newVapidKey();
    server.stream.ready('brw_leader', 'bs_leader', { vapid_public_key: vapidKey });
    const follower = tab();
    await vi.waitFor(() => expect(follower.browserId()).toBe('brw_leader'));
    expect(server.connects()).toHaveLength(1); // the follower holds no stream of its own

    await follower.enablePush();
    expect(puts.map((request) => request.url.pathname)).toEqual(['/v1/browsers/brw_leader/push-subscription']);
    expect(JSON.parse(puts[0]?.body ?? '').browser_secret).toBe('bs_leader');
    expect(Buffer.from(platform.subscription()!.options.applicationServerKey).toString('base64url')).toBe(vapidKey);
    follower.close();
    leader.close();
  });
});
