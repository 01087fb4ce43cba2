import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness({ extra: { heartbeatMs: 60_000 } });
});
afterEach(async () => {
  await h.close();
});

type Browser = Awaited<ReturnType<Harness['connectBrowser']>>;

/** A browser's request: its credentials in a text/plain JSON body, as a page posts them. */
function asBrowser(browser: Browser, path: string, body: Record<string, unknown> = {}) {
  return h.request(`/v1/browsers/${browser.browserId}/inbox${path}`, {
    method: 'POST',
    body: JSON.stringify({ browser_secret: browser.secret, ...body }),
    headers: { 'Content-Type': 'text/plain' },
  });
}

async function sendTo(recipient: string, title: string, extra: Record<string, unknown> = {}): Promise<string> {
  const response = await h.send({ recipient, title, ...extra });
  expect(response.status).toBe(201);
  // Items are ordered by id, which orders sends to the millisecond.
  h.clock.advance(1);
  return ((await response.json()) as { id: string }).id;
}

/** Opens an event stream of a new browser of the recipient and waits for its `ready`. */
async function openStream(recipient: string) {
  const token = await h.tidings.createConnectToken({ projectId: h.project.id, recipient });
  const stream = readEvents(
    await h.request(`/v1/connect/${token.token}`, { headers: { Accept: 'text/event-stream' } }),
  );
  await stream.next('ready');
  return stream;
}

describe('the inbox through the browser endpoints', () => {
  it('lists the recipient’s items newest first, pages them, and counts them', async () => {
    const browser = await h.connectBrowser('ada');
    const first = await sendTo('ada', 'first');
    const second = await sendTo('ada', 'second');
    const third = await sendTo('ada', 'third');
    await h.send({ recipient: 'ada', title: 'test mode' }, h.testKey);

    const page = await asBrowser(browser, '', { limit: 2 });
    expect(page.status).toBe(200);
    const body = await page.json();
    expect(body.data.map((item: { id: string }) => item.id)).toEqual([third, second]);
    expect(body.data[0]).toMatchObject({ object: 'inbox_item', recipient: 'ada', title: 'third', read_at: null });
    expect(body).toMatchObject({ has_more: true, counts: { object: 'inbox_counts', total: 3, unread: 3, unseen: 3 } });
    const rest = await (await asBrowser(browser, '', { limit: 2, starting_after: second })).json();
    expect(rest.data.map((item: { id: string }) => item.id)).toEqual([first]);
    expect(rest.has_more).toBe(false);

    const counts = await asBrowser(browser, '/counts');
    expect(await counts.json()).toMatchObject({ object: 'inbox_counts', total: 3, unread: 3, unseen: 3 });
  });

  it('marks read for every browser of the recipient: each open stream gets the update', async () => {
    const phone = await openStream('ada');
    const laptop = await openStream('ada');
    const stranger = await openStream('bob');
    const browser = await h.connectBrowser('ada');
    const id = await sendTo('ada', 'hello');
    await sendTo('bob', 'not yours');

    const marked = await asBrowser(browser, '/mark', { action: 'read', ids: [id] });
    expect(marked.status).toBe(200);
    const update = await marked.json();
    expect(update).toMatchObject({
      object: 'inbox_update',
      action: 'read',
      all: false,
      not_found: [],
      counts: { total: 1, unread: 0, unseen: 0 },
    });
    expect(update.items[0]).toMatchObject({ id, read_at: new Date(h.clock.now()).toISOString() });

    for (const stream of [phone, laptop]) {
      const event = await stream.next('inbox');
      expect(event.id).toBeUndefined();
      expect(JSON.parse(event.data)).toEqual(update);
    }
    await stranger.next('notification');
    expect(stranger.events.some((event) => event.event === 'inbox')).toBe(false);
    for (const stream of [phone, laptop, stranger]) await stream.cancel();
  });

  it('tells the version of every change: a new item the version it was made at, a mark its base, a mark of all its cut-off', async () => {
    const stream = await openStream('ada');
    const browser = await h.connectBrowser('ada');
    const first = await sendTo('ada', 'first');
    const made = JSON.parse((await stream.next('notification')).data);
    expect(made).toMatchObject({ notification_id: first, inbox_version: 1 });
    await sendTo('ada', 'second');
    expect(JSON.parse((await stream.next('notification', 2)).data).inbox_version).toBe(2);

    const markedAt = h.clock.now();
    const one = await (await asBrowser(browser, '/mark', { action: 'read', ids: [first] })).json();
    expect(one).toMatchObject({ base_version: 2, cutoff_version: null, counts: { version: 3 } });
    expect(one.marked_at).toBe(new Date(markedAt).toISOString());
    expect(JSON.parse((await stream.next('inbox')).data)).toEqual(one);

    // A mark of all items raises the version once for each item it changed: here the second only.
    const all = await (await asBrowser(browser, '/mark', { action: 'read', all: true })).json();
    expect(all).toMatchObject({ all: true, base_version: 3, cutoff_version: 3, counts: { version: 4 } });
    const seen = await (await asBrowser(browser, '/mark', { action: 'archive', all: true })).json();
    expect(seen).toMatchObject({ base_version: 4, cutoff_version: 4, counts: { version: 6 } });
    // Nothing changed: the version stays, and the base is it.
    const none = await (await asBrowser(browser, '/mark', { action: 'read', all: true })).json();
    expect(none).toMatchObject({ base_version: 6, counts: { version: 6 } });
    await stream.cancel();
  });

  it('marks all read, and tells nobody when nothing changed', async () => {
    const stream = await openStream('ada');
    const browser = await h.connectBrowser('ada');
    await sendTo('ada', 'one');
    await sendTo('ada', 'two');
    const all = await (await asBrowser(browser, '/mark', { action: 'read', all: true })).json();
    expect(all).toMatchObject({ all: true, items: [], counts: { unread: 0 } });
    await stream.next('inbox');
    const again = await (await asBrowser(browser, '/mark', { action: 'read', all: true })).json();
    expect(again.counts.unread).toBe(0);
    await sendTo('ada', 'three');
    await stream.next('notification', 3);
    expect(stream.events.filter((event) => event.event === 'inbox')).toHaveLength(1);
    await stream.cancel();
  });

  it('marks seen on a displayed receipt and read on a clicked one', async () => {
    const browser = await h.connectBrowser('ada');
    await sendTo('ada', 'one');
    await sendTo('ada', 'two');
    const polled = await h.request(`/v1/connect/${browser.token}`, {
      method: 'POST',
      json: { browser_id: browser.browserId, browser_secret: browser.secret },
    });
    const [one, two] = (await polled.json()).notifications as { attempt_id: string; notification_id: string }[];
    const receipts = await h.request('/v1/events', {
      method: 'POST',
      body: JSON.stringify({
        browser_id: browser.browserId,
        browser_secret: browser.secret,
        events: [
          { type: 'displayed', attempt_id: one!.attempt_id },
          { type: 'clicked', attempt_id: two!.attempt_id },
        ],
      }),
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(receipts.status).toBe(202);
    const items = (await (await asBrowser(browser, '')).json()).data as {
      id: string;
      seen_at: string | null;
      read_at: string | null;
    }[];
    const byId = new Map(items.map((item) => [item.id, item]));
    expect(byId.get(one!.notification_id)).toMatchObject({ read_at: null });
    expect(byId.get(one!.notification_id)!.seen_at).not.toBeNull();
    expect(byId.get(two!.notification_id)!.read_at).not.toBeNull();
    expect(await (await asBrowser(browser, '/counts')).json()).toMatchObject({ unread: 1, unseen: 0 });
  });

  it('refuses a bad mark, another browser’s secret and a disconnected browser', async () => {
    const browser = await h.connectBrowser('ada');
    const other = await h.connectBrowser('bob');
    const both = await asBrowser(browser, '/mark', {
      action: 'read',
      ids: ['ntf_00000000000000000000000000'],
      all: true,
    });
    expect(both.status).toBe(400);
    expect((await both.json()).errors).toEqual([{ path: 'ids', message: 'give either ids or all: true' }]);
    const neither = await asBrowser(browser, '/mark', { action: 'read' });
    expect(neither.status).toBe(400);
    const badAction = await asBrowser(browser, '/mark', { action: 'delete', all: true });
    expect(badAction.status).toBe(400);
    const badId = await asBrowser(browser, '/mark', { action: 'read', ids: ['att_1'] });
    expect((await badId.json()).errors[0].path).toBe('ids.0');
    const wrongSecret = await h.request(`/v1/browsers/${browser.browserId}/inbox`, {
      method: 'POST',
      json: { browser_secret: other.secret },
    });
    expect(wrongSecret.status).toBe(401);
    await h.request(`/v1/browsers/${browser.browserId}/disconnect`, {
      method: 'POST',
      json: { browser_secret: browser.secret },
    });
    const gone = await asBrowser(browser, '/counts');
    expect((await gone.json()).code).toBe('BROWSER_DISCONNECTED');
  });
});

describe('the inbox through the API', () => {
  it('lists and counts a recipient’s inbox with a live key; a test key sees it empty', async () => {
    await h.connectBrowser('ada@example.com');
    const id = await sendTo('ada@example.com', 'hello');
    const list = await h.request('/v1/recipients/ada%40example.com/inbox?unread=true&limit=5', { key: h.liveKey });
    expect(list.status).toBe(200);
    const body = await list.json();
    expect(body.data.map((item: { id: string }) => item.id)).toEqual([id]);
    expect(body.counts).toMatchObject({ total: 1, unread: 1 });
    const counts = await h.request('/v1/recipients/ada@example.com/inbox/counts', { key: h.liveKey });
    expect(await counts.json()).toMatchObject({ total: 1, unread: 1, unseen: 1 });
    const asTest = await (await h.request('/v1/recipients/ada@example.com/inbox', { key: h.testKey })).json();
    expect(asTest).toMatchObject({ data: [], has_more: false, counts: { total: 0 } });
  });

  it('marks read from the back end; the recipient’s streams get it', async () => {
    const stream = await openStream('ada');
    const id = await sendTo('ada', 'hello');
    const response = await h.request('/v1/recipients/ada/inbox/mark', {
      method: 'POST',
      key: h.liveKey,
      json: { action: 'read', ids: [id, 'ntf_00000000000000000000000000'] },
    });
    expect(response.status).toBe(200);
    const update = await response.json();
    expect(update).toMatchObject({ not_found: ['ntf_00000000000000000000000000'], counts: { unread: 0 } });
    expect(JSON.parse((await stream.next('inbox')).data)).toEqual(update);
    await stream.cancel();
  });

  it('counts the back end’s inbox reads on a scope of their own, never on the key, project or account', async () => {
    await h.close();
    h = await createHarness({ limits: { perKey: 2, inboxReadsPerProject: 4 }, extra: { heartbeatMs: 60_000 } });
    await h.connectBrowser('ada');
    for (let read = 0; read < 4; read++) {
      const path = read % 2 === 0 ? '/v1/recipients/ada/inbox' : '/v1/recipients/ada/inbox/counts';
      const response = await h.request(path, { key: h.liveKey });
      expect(response.status).toBe(200);
      expect(response.headers.get('RateLimit-Policy')).toBe('"inbox-reads";q=4;w=60');
    }
    const over = await h.request('/v1/recipients/ada/inbox/counts', { key: h.liveKey });
    expect(over.status).toBe(429);
    expect((await over.json()).code).toBe('RATE_LIMITED');
    expect(Number(over.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    // The key's two requests are still there for the sends.
    expect((await h.send({ recipient: 'ada', title: 'one' })).status).toBe(201);
    expect((await h.send({ recipient: 'ada', title: 'two' })).status).toBe(201);
    expect((await h.send({ recipient: 'ada', title: 'three' })).status).toBe(429);
  });

  it('reads another project’s recipient as an empty inbox of this project’s own', async () => {
    const other = await h.tidings.admin.createProject({ accountId: h.account.id, name: 'Other' });
    await h.connectBrowser('ada', other.id);
    const token = await h.tidings.createConnectToken({ projectId: other.id, recipient: 'ada' });
    expect(token.recipient).toBe('ada');
    const otherKey = (await h.tidings.admin.createKey({ projectId: other.id, mode: 'live' })).key!;
    const id = ((await (await h.send({ recipient: 'ada', title: 'other project' }, otherKey)).json()) as { id: string })
      .id;
    const list = await (await h.request('/v1/recipients/ada/inbox', { key: h.liveKey })).json();
    expect(list).toMatchObject({ data: [], has_more: false, counts: { total: 0, unread: 0, unseen: 0, version: 0 } });
    const mark = await h.request('/v1/recipients/ada/inbox/mark', {
      method: 'POST',
      key: h.liveKey,
      json: { action: 'read', ids: [id] },
    });
    expect(await mark.json()).toMatchObject({ items: [], not_found: [id] });
    const own = await (await h.request('/v1/recipients/ada/inbox', { key: otherKey })).json();
    expect(own.data.map((item: { id: string }) => item.id)).toEqual([id]);
  });

  it('refuses a bad recipient, an unknown query parameter and a bad limit', async () => {
    for (const path of [
      '/v1/recipients/has%20space/inbox',
      '/v1/recipients/ada/inbox?sort=asc',
      '/v1/recipients/ada/inbox?limit=0',
      '/v1/recipients/ada/inbox?limit=101',
      '/v1/recipients/ada/inbox?unread=yes',
      '/v1/recipients/ada/inbox?starting_after=nope',
    ]) {
      const response = await h.request(path, { key: h.liveKey });
      expect(response.status, path).toBe(400);
      expect((await response.json()).code).toBe('VALIDATION_FAILED');
    }
    const unauthenticated = await h.request('/v1/recipients/ada/inbox');
    expect(unauthenticated.status).toBe(401);
  });

  it('keeps a send for the inbox of a recipient with no browser when it asks, and refuses it with 409 when not', async () => {
    const refused = await h.send({ recipient: 'away', title: 'not kept' });
    expect(refused.status).toBe(409);
    expect((await refused.json()).code).toBe('NO_CONNECTED_BROWSER');
    expect((await h.send({ recipient: 'away', title: 'x', keep_for_inbox: 'yes' })).status).toBe(400);

    const kept = await h.send({
      recipient: 'away',
      title: 'Kept for you',
      keep_for_inbox: true,
      notify_unread_after: 600,
    });
    expect(kept.status).toBe(201);
    const sent = await kept.json();
    expect(sent).toMatchObject({ object: 'notification', mode: 'live', attempts: [], status: 'completed' });
    const read = await (await h.request(`/v1/notifications/${sent.id}`, { key: h.liveKey })).json();
    expect(read).toMatchObject({ id: sent.id, attempts: [] });
    // It counts as a notification, and its reminder is recorded as for any send.
    const day = new Date(h.clock.now()).toISOString().slice(0, 10);
    expect(await h.store.getUsage({ projectId: h.project.id, fromDay: day, toDay: day })).toEqual([
      { day, notifications: 1, attempts: 0 },
    ]);
    const jobs = await h.store.listJobs({ projectId: h.project.id, kind: 'inbox-unread', limit: 10 });
    expect(jobs.map((job) => job.key)).toEqual([`inbox-unread:${sent.id}`]);
    // A test key's send is kept too (201, no attempt), and makes no item.
    const asTest = await h.send({ recipient: 'away', title: 'test', keep_for_inbox: true }, h.testKey);
    expect(asTest.status).toBe(201);

    // The first connect finds it, with the counts.
    const browser = await h.connectBrowser('away');
    const counts = await (await asBrowser(browser, '/counts')).json();
    expect(counts).toMatchObject({ total: 1, unread: 1, unseen: 1 });
    const page = await (await asBrowser(browser, '')).json();
    expect(page.data).toMatchObject([{ id: sent.id, title: 'Kept for you', read_at: null }]);
    // Still unread when it is due: reminded once.
    const due = h.clock.now() + 600_000;
    expect(await h.store.remindUnread({ notificationId: sent.id, afterSeconds: 600, now: due })).toBe(true);
    expect(await h.store.remindUnread({ notificationId: sent.id, afterSeconds: 600, now: due })).toBe(false);
  });

  it('takes notify_unread_after from a send, as a whole number of seconds', async () => {
    await h.connectBrowser('ada');
    expect((await h.send({ recipient: 'ada', title: 'x', notify_unread_after: 0 })).status).toBe(400);
    expect((await h.send({ recipient: 'ada', title: 'x', notify_unread_after: 1.5 })).status).toBe(400);
    expect((await h.send({ recipient: 'ada', title: 'x', notify_unread_after: 2_592_001 })).status).toBe(400);
    const sentAt = h.clock.now();
    const id = await sendTo('ada', 'remind me', { notify_unread_after: 900 });
    const jobs = await h.store.listJobs({ projectId: h.project.id, kind: 'inbox-unread', limit: 10 });
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({
      key: `inbox-unread:${id}`,
      payload: { notificationId: id, afterSeconds: 900 },
      runAt: sentAt + 900_000,
    });
    await h.send({ recipient: 'ada', title: 'test', notify_unread_after: 900 }, h.testKey);
    expect(await h.store.listJobs({ projectId: h.project.id, kind: 'inbox-unread', limit: 10 })).toHaveLength(1);
  });
});
