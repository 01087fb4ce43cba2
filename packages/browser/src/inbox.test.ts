import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { counts, createFakeServer, inboxItem, inboxUpdate, json, notification, problem } from '../test/fake-server.js';
import { fakeBroadcastChannel, fakeLocks } from '../test/fake-tabs.js';
import { memoryStorage } from '../test/memory-storage.js';
import { connect } from './connect.js';
import type { TidingsError } from './errors.js';
import type { TidingsInboxEvent } from './inbox-types.js';
import type { ConnectOptions, TidingsHost } from './options.js';

const baseUrl = 'https://tidings.test';

function start(overrides: Partial<ConnectOptions> = {}, server = createFakeServer()) {
  const errors: TidingsError[] = [];
  const connection = connect({
    baseUrl,
    token: 'ct_first',
    onNotification: () => {},
    onError: (error) => errors.push(error),
    storage: memoryStorage(),
    fetch: server.fetch,
    environment: { host: null, random: () => 0.5 },
    ...overrides,
  });
  const events: TidingsInboxEvent[] = [];
  const listen = () => connection.inbox.subscribe((event) => events.push(event));
  return { server, connection, errors, events, listen };
}

/** Lets fetches, stream reads and due timers run. */
const tick = (milliseconds = 0) => vi.advanceTimersByTimeAsync(milliseconds);

/** An answer the test releases when it wants. */
function heldAnswer(response: () => Response) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  return { answer: () => released.then(response), release };
}

const withoutStatus = (events: TidingsInboxEvent[]) => events.filter((event) => event.type !== 'status');

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('connection.inbox: requests', () => {
  it('waits for the ready event, then posts with the browser id in the path and its secret in a text/plain body', async () => {
    const { server, connection } = start();
    const listed = connection.inbox.list({ unread: true, limit: 5, startingAfter: 'ntf_9' });
    const counted = connection.inbox.counts();
    const marked = connection.inbox.mark('read', ['ntf_1', 'ntf_2']);
    const markedAll = connection.inbox.mark('archive', 'all');
    await tick(10);
    expect(server.inboxRequests()).toEqual([]);

    server.stream.ready('brw_1', 'bs_1');
    await tick(10);
    expect(server.inboxRequests()).toEqual([
      {
        path: '/v1/browsers/brw_1/inbox',
        body: { browser_secret: 'bs_1', unread: true, limit: 5, starting_after: 'ntf_9' },
      },
      { path: '/v1/browsers/brw_1/inbox/counts', body: { browser_secret: 'bs_1' } },
      {
        path: '/v1/browsers/brw_1/inbox/mark',
        body: { browser_secret: 'bs_1', action: 'read', ids: ['ntf_1', 'ntf_2'] },
      },
      { path: '/v1/browsers/brw_1/inbox/mark', body: { browser_secret: 'bs_1', action: 'archive', all: true } },
    ]);
    const request = server.requests.find((entry) => entry.url.pathname.endsWith('/inbox'))!;
    expect(request.method).toBe('POST');
    expect(request.headers.get('content-type')).toBe('text/plain');
    // A mark outlives the page (a click that follows the item's link), a read does not need to.
    expect(server.requests.filter((entry) => entry.init.keepalive).map((entry) => entry.url.pathname)).toEqual([
      '/v1/browsers/brw_1/inbox/mark',
      '/v1/browsers/brw_1/inbox/mark',
    ]);
    await expect(listed).resolves.toMatchObject({ object: 'list', data: [], has_more: false });
    await expect(counted).resolves.toEqual(counts(0));
    await expect(marked).resolves.toMatchObject({ object: 'inbox_update', action: 'read' });
    await expect(markedAll).resolves.toMatchObject({ object: 'inbox_update', action: 'archive' });
    connection.close();
  });

  it('sends only the list options given', async () => {
    const { server, connection } = start();
    server.answers.inbox.push(() =>
      json(200, { object: 'list', data: [inboxItem('ntf_1')], has_more: true, counts: counts(1) }),
    );
    await tick(10);
    server.stream.ready('brw_1', 'bs_1');
    const page = await connection.inbox.list();
    expect(server.inboxRequests()[0]?.body).toEqual({ browser_secret: 'bs_1' });
    expect(page.data.map((item) => item.id)).toEqual(['ntf_1']);
    expect(page.has_more).toBe(true);
    connection.close();
  });

  it("rejects with the server's error, and with NOT_CONNECTED once the connection closes", async () => {
    const { server, connection } = start();
    await tick(10);
    server.stream.ready('brw_1', 'bs_1');
    server.answers.inbox.push(() => problem(400, 'VALIDATION_FAILED'));
    await expect(connection.inbox.mark('read', [])).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      status: 400,
    });

    const second = start();
    const pending = second.connection.inbox.counts();
    second.connection.close();
    await expect(pending).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
    await expect(second.connection.inbox.list()).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
    connection.close();
  });
});

describe('connection.inbox: subscribe', () => {
  it('hands each inbox event of the stream to the subscribers as an update', async () => {
    const { server, connection, events, listen } = start();
    const stop = listen();
    await tick(10);
    server.stream.ready('brw_1', 'bs_1');
    await tick(10);
    const update = inboxUpdate({
      items: [inboxItem('ntf_1', { read_at: '2026-01-01T00:01:00.000Z' })],
      counts: counts(2),
    });
    server.stream.inbox(update);
    await tick(10);
    expect(withoutStatus(events)).toEqual([
      { type: 'counts', counts: counts(0) }, // read when the connection opened
      { type: 'update', update },
    ]);

    stop();
    server.stream.inbox(update);
    await tick(10);
    expect(withoutStatus(events)).toHaveLength(2);
    connection.close();
  });

  it('turns a new notification into an item at once, with its inbox version, then reads the counts again', async () => {
    const { server, connection, events, listen } = start();
    listen();
    await tick(10);
    server.stream.ready('brw_1', 'bs_1');
    await tick(10);
    events.length = 0;
    server.answers.inbox.push(() => json(200, counts(1)));
    server.stream.notification(
      'brw_1.1',
      notification('att_1', { title: 'Shipped', url: '/orders/1', inbox_version: 7 }),
    );
    server.stream.notification('brw_1.1', notification('att_1')); // a redelivery: no second item
    await tick(10);
    expect(withoutStatus(events)).toEqual([
      {
        type: 'item',
        item: {
          object: 'inbox_item',
          id: 'ntf_att_1',
          recipient: 'user_1',
          title: 'Shipped',
          body: null,
          url: '/orders/1',
          icon: null,
          tag: null,
          data: null,
          created_at: '2026-01-01T00:00:00Z',
          seen_at: null,
          read_at: null,
          archived_at: null,
        },
        version: 7,
      },
      { type: 'counts', counts: counts(1) },
    ]);
    connection.close();
  });

  it('reads the counts once at a time, and once more after a burst of notifications', async () => {
    const { server, connection, events, listen } = start();
    await tick(10);
    server.stream.ready('brw_1', 'bs_1');
    await tick(10);
    listen();
    const first = heldAnswer(() => json(200, counts(1)));
    server.answers.inbox.push(first.answer, () => json(200, counts(4, 2)));
    for (const id of ['att_1', 'att_2', 'att_3', 'att_4']) server.stream.notification(`brw_1.${id}`, notification(id));
    await tick(10);
    expect(server.inboxRequests()).toHaveLength(1);
    first.release();
    await tick(10);
    expect(server.inboxRequests().map((request) => request.path)).toEqual([
      '/v1/browsers/brw_1/inbox/counts',
      '/v1/browsers/brw_1/inbox/counts',
    ]);
    expect(withoutStatus(events).map((event) => event.type)).toEqual([
      'item',
      'item',
      'item',
      'item',
      'counts',
      'counts',
    ]);
    expect(withoutStatus(events).at(-1)).toEqual({ type: 'counts', counts: counts(4, 2) });
    connection.close();
  });

  it('reads the counts again on every reopen, and never without a subscriber', async () => {
    const { server, connection, events, listen } = start();
    await tick(10);
    server.stream.ready('brw_1', 'bs_1');
    server.stream.notification('brw_1.1', notification('att_1'));
    await tick(10);
    expect(server.inboxRequests()).toEqual([]);

    listen();
    server.stream.end();
    await tick(5000);
    server.stream.ready('brw_1', null, { resumed: true });
    await tick(10);
    expect(server.inboxRequests().map((request) => request.path)).toEqual(['/v1/browsers/brw_1/inbox/counts']);
    expect(events.filter((event) => event.type === 'status').map((event) => event.status)).toEqual([
      'reconnecting',
      'open',
    ]);
    expect(connection.inbox.status()).toBe('open');
    connection.close();
    expect(connection.inbox.status()).toBe('closed');
  });

  it('tells updates as the server made them, and counts read again only when no later ones were told', async () => {
    const { server, connection, events, listen } = start();
    listen();
    await tick(10);
    server.stream.ready('brw_1', 'bs_1');
    await tick(10);
    events.length = 0;
    const newest = counts(2, 5);
    server.stream.inbox(inboxUpdate({ counts: newest }));
    await tick(10);
    // Counts read meanwhile, but made before that update: no news.
    server.answers.inbox.push(() => json(200, counts(3, 4)));
    server.stream.notification('brw_1.1', notification('att_1'));
    await tick(10);
    // An older update is told as it is: its counts' version places it among the changes.
    const late = inboxUpdate({ items: [inboxItem('ntf_1')], counts: counts(1, 3) });
    server.stream.inbox(late);
    await tick(10);
    expect(withoutStatus(events)).toEqual([
      { type: 'update', update: inboxUpdate({ counts: newest }) },
      { type: 'item', item: expect.objectContaining({ id: 'ntf_att_1' }), version: null },
      { type: 'update', update: late },
    ]);
    // The answers of the page's own requests count too.
    server.answers.inbox.push(() => json(200, counts(0, 9)));
    await connection.inbox.counts();
    const counted = events.length;
    // Counts read again that are older than what an update told are not told.
    server.answers.inbox.push(() => json(200, counts(7, 8)));
    server.stream.notification('brw_1.2', notification('att_2'));
    await tick(10);
    expect(withoutStatus(events.slice(counted)).map((event) => event.type)).toEqual(['item']);
    connection.close();
  });

  it('reports an inbox event that is not an update, and hands it to nobody', async () => {
    const { server, connection, events, errors, listen } = start();
    listen();
    await tick(10);
    server.stream.ready('brw_1', 'bs_1');
    await tick(10);
    server.stream.send('event: inbox\ndata: {"object":"list"}\n\n');
    await tick(10);
    expect(events.some((event) => event.type === 'update')).toBe(false);
    expect(errors.map((error) => error.code)).toEqual(['PROTOCOL_ERROR']);
    connection.close();
  });
});

describe('connection.inbox in tabs that share a connection', () => {
  function createBrowser() {
    const server = createFakeServer();
    const host: TidingsHost = {
      addEventListener: () => {},
      removeEventListener: () => {},
      navigator: { locks: fakeLocks() },
      BroadcastChannel: fakeBroadcastChannel(),
    };
    const openTab = () =>
      start({ recipient: 'user_1', token: 'ct_tab', environment: { host, random: () => 0.5 } }, server);
    return { server, openTab };
  }

  it('the leader relays every inbox event: each tab hears it once', async () => {
    const { server, openTab } = createBrowser();
    const tabs = [openTab(), openTab(), openTab()];
    for (const tab of tabs) tab.listen();
    await tick(10);
    expect(server.connects()).toHaveLength(1);
    server.stream.ready('brw_1', 'bs_1');
    await tick(100);
    const update = inboxUpdate({ action: 'read', all: true, counts: counts(0, 3) });
    server.stream.inbox(update);
    server.stream.notification('brw_1.1', notification('att_1'));
    await tick(100);
    for (const tab of tabs) {
      const heard = tab.events.filter((event) => event.type === 'update' || event.type === 'item');
      expect(heard).toEqual([
        { type: 'update', update },
        { type: 'item', item: expect.objectContaining({ id: 'ntf_att_1' }), version: null },
      ]);
      expect(tab.events.filter((event) => event.type === 'counts').length).toBeGreaterThan(0);
    }
    for (const tab of tabs) tab.connection.close();
  });

  it("a follower's requests carry the leader's browser, once the leader has opened", async () => {
    const { server, openTab } = createBrowser();
    const [leader, follower] = [openTab(), openTab()];
    await tick(10);
    const counted = follower.connection.inbox.counts();
    await tick(10);
    expect(server.inboxRequests()).toEqual([]);
    server.stream.ready('brw_1', 'bs_1');
    await tick(100);
    await expect(counted).resolves.toEqual(counts(0));
    expect(server.inboxRequests()).toEqual([
      { path: '/v1/browsers/brw_1/inbox/counts', body: { browser_secret: 'bs_1' } },
    ]);
    for (const tab of [leader, follower]) tab.connection.close();
  });
});
