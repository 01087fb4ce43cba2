import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/harness.js';
import { inbox, type PushOptions, requestLog, type TidingsOptions } from '../index.js';
import { webPush } from '../node/index.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const PUSH = { vapidSubject: 'mailto:ops@example.com' };
const P256DH = `B${'x'.repeat(86)}`;
const AUTH = 'y'.repeat(22);
const FCM = 'https://fcm.googleapis.com/fcm/send/abc:def';

async function start(extra: Partial<TidingsOptions> = {}) {
  h = await createHarness({ extra });
  return h;
}

/** An instance's options with Web Push on (its jobs are looked at, never run). */
function withPush(push: PushOptions): Partial<TidingsOptions> {
  return { features: [inbox(), requestLog(), webPush(push)], jobs: false };
}

function put(harness: Harness, browser: { browserId: string; secret: string }, body: Record<string, unknown> = {}) {
  return harness.request(`/v1/browsers/${browser.browserId}/push-subscription`, {
    method: 'PUT',
    json: { browser_secret: browser.secret, endpoint: FCM, keys: { p256dh: P256DH, auth: AUTH }, ...body },
  });
}

function remove(harness: Harness, browser: { browserId: string; secret: string }) {
  return harness.request(`/v1/browsers/${browser.browserId}/push-subscription`, {
    method: 'DELETE',
    json: { browser_secret: browser.secret },
  });
}

async function problem(response: Response) {
  return { status: response.status, ...((await response.json()) as { code: string; errors?: unknown }) };
}

describe('Web Push off (no VAPID subject)', () => {
  it('answers vapid_public_key null, and refuses a subscription after checking the secret', async () => {
    const harness = await start();
    const token = await harness.tidings.createConnectToken({ projectId: harness.project.id, recipient: 'u' });
    const registered = await (await harness.request(`/v1/connect/${token.token}`, { method: 'POST' })).json();
    expect(registered.vapid_public_key).toBeNull();
    const browser = { browserId: registered.browser_id, secret: registered.browser_secret };
    expect(await problem(await put(harness, { ...browser, secret: 'bs_wrong' }))).toMatchObject({
      status: 401,
      code: 'UNAUTHORIZED',
    });
    expect(await problem(await put(harness, browser))).toMatchObject({ status: 409, code: 'PUSH_NOT_CONFIGURED' });
    expect(await harness.store.getPushSubscription(browser.browserId)).toBeNull();
    expect((await remove(harness, browser)).status).toBe(204);
  });
});

describe('PUT and DELETE /v1/browsers/{id}/push-subscription', () => {
  it('gives every connect answer the stored VAPID public key', async () => {
    const harness = await start(withPush(PUSH));
    const token = await harness.tidings.createConnectToken({ projectId: harness.project.id, recipient: 'u' });
    const registered = await (await harness.request(`/v1/connect/${token.token}`, { method: 'POST' })).json();
    const stored = await harness.store.getVapidKeys();
    expect(registered.vapid_public_key).toMatch(/^B[A-Za-z0-9_-]{86}$/);
    expect(registered.vapid_public_key).toBe(stored?.publicKey);
    expect(JSON.stringify(registered)).not.toContain(stored!.privateKey);
    const stream = readEvents(
      await harness.request(`/v1/connect/${token.token}`, { headers: { Accept: 'text/event-stream' } }),
    );
    const ready = JSON.parse((await stream.next('ready')).data);
    expect(ready.vapid_public_key).toBe(stored?.publicKey);
    await stream.cancel();
  });

  it('saves a subscription, shows its host but never its keys or path, replaces it and removes it', async () => {
    const harness = await start(withPush(PUSH));
    const browser = await harness.connectBrowser('u');
    const response = await put(harness, browser, { expiration_time: Date.UTC(2026, 6, 1) });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      object: 'push_subscription',
      browser_id: browser.browserId,
      endpoint_host: 'fcm.googleapis.com',
      created_at: '2026-06-01T12:00:00.000Z',
      updated_at: '2026-06-01T12:00:00.000Z',
      expires_at: '2026-07-01T00:00:00.000Z',
    });
    for (const secret of [P256DH, AUTH, 'abc:def']) expect(text).not.toContain(secret);
    expect(await harness.store.getPushSubscription(browser.browserId)).toMatchObject({
      endpoint: FCM,
      p256dh: P256DH,
      auth: AUTH,
    });

    harness.clock.advance(1000);
    const replaced = await put(harness, browser, { endpoint: 'https://updates.push.services.mozilla.com/wpush/v2/x' });
    expect(await replaced.json()).toMatchObject({
      endpoint_host: 'updates.push.services.mozilla.com',
      created_at: '2026-06-01T12:00:01.000Z',
      expires_at: null,
    });
    expect((await remove(harness, browser)).status).toBe(204);
    expect(await harness.store.getPushSubscription(browser.browserId)).toBeNull();
    expect((await remove(harness, browser)).status).toBe(204);
  });

  it('refuses bad bodies with the fields named', async () => {
    const harness = await start(withPush(PUSH));
    const browser = await harness.connectBrowser('u');
    const shortKey = await problem(await put(harness, browser, { keys: { p256dh: 'BAAA', auth: AUTH } }));
    expect(shortKey).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(shortKey.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'keys.p256dh' })]));
    const badAuth = await problem(await put(harness, browser, { keys: { p256dh: P256DH, auth: 'short' } }));
    expect(badAuth.errors).toEqual([expect.objectContaining({ path: 'keys.auth' })]);
    const compressed = await problem(
      await put(harness, browser, { keys: { p256dh: `A${'x'.repeat(86)}`, auth: AUTH } }),
    );
    expect(compressed).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(await problem(await put(harness, browser, { extra: 1 }))).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await problem(await put(harness, browser, { expiration_time: 'soon' }))).toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    const noBody = await harness.request(`/v1/browsers/${browser.browserId}/push-subscription`, { method: 'PUT' });
    expect(noBody.status).toBe(415);
    expect(await harness.store.getPushSubscription(browser.browserId)).toBeNull();
  });

  it('takes only https: endpoints on the allow-list; http: only when allowed, for development', async () => {
    const harness = await start(withPush(PUSH));
    const browser = await harness.connectBrowser('u');
    for (const endpoint of [
      'http://fcm.googleapis.com/fcm/send/x',
      'https://push.attacker.example/x',
      'https://169.254.169.254/latest',
      'https://user:pw@fcm.googleapis.com/x',
      'not a url',
    ]) {
      expect(await problem(await put(harness, browser, { endpoint }))).toMatchObject({
        status: 422,
        code: 'PUSH_ENDPOINT_NOT_ALLOWED',
      });
    }
    // Apple's hosts are matched by the wildcard entry.
    expect((await put(harness, browser, { endpoint: 'https://web.push.apple.com/QGx' })).status).toBe(200);
    await harness.close();

    const dev = await start(withPush({ ...PUSH, allowedHosts: ['127.0.0.1'], allowHttp: true }));
    const local = await dev.connectBrowser('u');
    expect((await put(dev, local, { endpoint: 'http://127.0.0.1:9/push/1' })).status).toBe(200);
    expect((await put(dev, local, { endpoint: FCM })).status).toBe(422);
  });

  it('answers a disconnected browser 409 BROWSER_DISCONNECTED, and disconnecting removes the subscription', async () => {
    const harness = await start(withPush(PUSH));
    const browser = await harness.connectBrowser('u');
    expect((await put(harness, browser)).status).toBe(200);
    const disconnected = await harness.request(`/v1/browsers/${browser.browserId}/disconnect`, {
      method: 'POST',
      json: { browser_secret: browser.secret },
    });
    expect(disconnected.status).toBe(204);
    expect(await harness.store.getPushSubscription(browser.browserId)).toBeNull();
    expect(await problem(await put(harness, browser))).toMatchObject({ status: 409, code: 'BROWSER_DISCONNECTED' });
  });
});

describe('sends to a subscribed browser', () => {
  it('enqueue one push job per subscribed browser after the grace (live only), and keep it connected past the stale limit', async () => {
    const harness = await start({ ...withPush({ ...PUSH, graceMs: 3000 }), staleBrowserMs: 120_000 });
    const subscribed = await harness.connectBrowser('u');
    await harness.connectBrowser('u');
    expect((await put(harness, subscribed)).status).toBe(200);
    const sent = await (await harness.send({ recipient: 'u', title: 'Hi' })).json();
    const jobs = await harness.store.listJobs({ projectId: harness.project.id, kind: 'push', limit: 10 });
    const attempt = sent.attempts.find((a: { browser_id: string }) => a.browser_id === subscribed.browserId);
    expect(jobs.map((job) => ({ key: job.key, runAt: job.runAt, payload: job.payload }))).toEqual([
      {
        key: `push:${subscribed.browserId}`,
        runAt: harness.clock.now() + 3000,
        payload: { attemptId: attempt.id, notificationId: sent.id, browserId: subscribed.browserId },
      },
    ]);
    expect((await harness.send({ recipient: 'u', title: 'Test' }, harness.testKey)).status).toBe(201);
    expect(await harness.store.listJobs({ projectId: harness.project.id, kind: 'push', limit: 10 })).toHaveLength(1);

    // Without streams both browsers go stale; the subscribed one stays, so sends still reach it.
    harness.clock.advance(121_000);
    await harness.tidings.sweep();
    expect((await harness.store.findBrowser(subscribed.browserId))?.browser.connected).toBe(true);
    const later = await harness.send({ recipient: 'u', title: 'Later' });
    expect(later.status).toBe(201);
    expect((await later.json()).attempts).toHaveLength(1);
  });
});
