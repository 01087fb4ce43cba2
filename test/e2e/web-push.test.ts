import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pushTopic } from '@tidings/core/node';
import { quietPeriod, until } from '@tidings/core/testing';
import {
  assertBuilt,
  createProjectWithKeys,
  type ServeProcess,
  startServe,
  tempDir,
} from '@tidings/test-support/cli-process.js';
import { startTestPushService, type TestPushService } from '@tidings/test-support/push-service.js';
import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Web Push end to end: `tidings serve` processes send to a push service of the tests' own on
 * 127.0.0.1, which decrypts each message with the subscription's keys and checks its VAPID token.
 */
const GRACE_MS = 1500;
const SUBJECT = 'mailto:ops@example.com';

let temp: Awaited<ReturnType<typeof tempDir>>;
let db: string;
let configFile: string;
let liveKey: string;
let pushService: TestPushService;
let server: ServeProcess | undefined;

function serve(): Promise<ServeProcess> {
  return startServe(['--db', db, '--port', '0', '--config', configFile]);
}

beforeAll(async () => {
  assertBuilt();
  temp = await tempDir();
  db = join(temp.dir, 'tidings.db');
  ({ liveKey } = await createProjectWithKeys(db));
  pushService = await startTestPushService({ closeAfterTest: false });
  configFile = join(temp.dir, 'tidings.json');
  await writeFile(
    configFile,
    JSON.stringify({
      // The tests poll attempts often with one key.
      limits: { perKey: 100_000, perProject: 100_000, perAccount: 100_000 },
      push: {
        vapidSubject: SUBJECT,
        allowedHosts: ['127.0.0.1'],
        allowHttp: true,
        allowPrivateAddresses: true,
        graceMs: GRACE_MS,
      },
    }),
  );
  server = await serve();
}, 60_000);

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  await pushService?.close();
  await temp?.remove();
});

function api(path: string, init: { method?: string; json?: unknown; key?: string | null } = {}) {
  const headers: Record<string, string> = {};
  if (init.key !== null) headers.Authorization = `Bearer ${init.key ?? liveKey}`;
  if (init.json !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(`${server!.url}${path}`, {
    method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
}

/** A browser of `recipient` registered by POST, and subscribed at the push service. */
async function subscribedBrowser(recipient: string) {
  const token = (await (await api('/v1/connect-tokens', { json: { recipient } })).json()).token as string;
  const registered = await (await api(`/v1/connect/${token}`, { method: 'POST', key: null })).json();
  const subscription = pushService.subscribe();
  const saved = await api(`/v1/browsers/${registered.browser_id}/push-subscription`, {
    method: 'PUT',
    key: null,
    json: {
      browser_secret: registered.browser_secret,
      endpoint: subscription.endpoint,
      keys: { p256dh: subscription.p256dh, auth: subscription.auth },
    },
  });
  expect(saved.status).toBe(200);
  return {
    token,
    browserId: registered.browser_id as string,
    secret: registered.browser_secret as string,
    vapidPublicKey: registered.vapid_public_key as string,
    subscription,
  };
}

async function send(recipient: string, extra: Record<string, unknown> = {}) {
  const response = await api('/v1/notifications', { json: { recipient, title: 'Hello', ...extra } });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; attempts: { id: string; browser_id: string }[] };
}

async function attemptOf(notificationId: string, browserId: string) {
  const read = await (await api(`/v1/notifications/${notificationId}`)).json();
  return read.attempts.find((attempt: { browser_id: string }) => attempt.browser_id === browserId) as {
    id: string;
    status: string;
    final: boolean;
    via: string | null;
    push_accepted_at: string | null;
    reason: string | null;
  };
}

const receivedBy = (subscriptionId: string) =>
  pushService.received.filter((push) => push.subscriptionId === subscriptionId);

describe('tidings serve with Web Push', () => {
  it('says so at start, and pushes a send: decrypted envelope, valid VAPID, TTL, Urgency and Topic', async () => {
    const started = await server!.waitForStdout(/^web push on: .*$/m);
    expect(started).toMatch(/^web push on: VAPID subject mailto:ops@example\.com, public key B[\w-]{86}$/m);
    const browser = await subscribedBrowser('alice');
    const sent = await send('alice', { body: 'Body', tag: 'thread-1', ttl: 600, data: { n: 1 } });
    const [push] = await until(() => receivedBy(browser.subscription.id), {
      accept: (pushes) => pushes.length === 1,
      what: 'the push',
    });
    expect(JSON.parse(push!.payload)).toEqual({
      tidings: 1,
      browser_id: browser.browserId,
      notification: expect.objectContaining({
        attempt_id: sent.attempts[0]!.id,
        notification_id: sent.id,
        title: 'Hello',
        body: 'Body',
        tag: 'thread-1',
        data: { n: 1 },
      }),
    });
    expect(push!.subject).toBe(SUBJECT);
    expect(push!.vapidKey).toBe(browser.vapidPublicKey);
    expect(push!.urgency).toBe('normal');
    expect(push!.topic).toBe(pushTopic('thread-1'));
    // The seconds left of the ttl when it went out, after the grace.
    expect(push!.ttl).toBeLessThanOrEqual(600 - Math.floor(GRACE_MS / 1000));
    expect(push!.ttl).toBeGreaterThan(560);
    const attempt = await until(() => attemptOf(sent.id, browser.browserId), {
      accept: (a) => a.via === 'push',
      what: 'the attempt sent by push',
    });
    expect(attempt).toMatchObject({ status: 'sent', final: false });
    expect(Date.parse(attempt.push_accepted_at!)).toBeGreaterThan(0);
  });

  it('pushes nothing when an open tab confirms delivery within the grace', async () => {
    const browser = await subscribedBrowser('bob');
    const stream = readEvents(
      await fetch(`${server!.url}/v1/connect/${browser.token}`, {
        headers: { Accept: 'text/event-stream', 'Last-Event-ID': `${browser.browserId}.0` },
      }),
    );
    expect(JSON.parse((await stream.next('ready')).data)).toMatchObject({
      browser_id: browser.browserId,
      resumed: true,
    });
    const sent = await send('bob');
    const event = JSON.parse((await stream.next('notification')).data);
    const receipt = await api('/v1/events', {
      key: null,
      json: {
        browser_id: browser.browserId,
        browser_secret: browser.secret,
        events: [{ type: 'delivered', attempt_id: event.attempt_id }],
      },
    });
    expect(receipt.status).toBe(202);
    await quietPeriod(GRACE_MS + 2000, 'the push job to run and send nothing');
    expect(receivedBy(browser.subscription.id)).toEqual([]);
    expect(await attemptOf(sent.id, browser.browserId)).toMatchObject({ status: 'delivered', via: 'stream' });
    await stream.cancel();
  });

  it('pushes nothing to a browser that removed its subscription, which stays connected meanwhile', async () => {
    const browser = await subscribedBrowser('gina');
    const removed = await api(`/v1/browsers/${browser.browserId}/push-subscription`, {
      method: 'DELETE',
      key: null,
      json: { browser_secret: browser.secret },
    });
    expect(removed.status).toBe(204);
    const sent = await send('gina');
    await quietPeriod(GRACE_MS + 1500, 'a push that should not go out');
    expect(receivedBy(browser.subscription.id)).toEqual([]);
    expect(await attemptOf(sent.id, browser.browserId)).toMatchObject({ status: 'accepted', via: null });
  });

  it('retries after a 429 with Retry-After, and the one push that got through is recorded', async () => {
    const browser = await subscribedBrowser('carol');
    pushService.script(browser.subscription.id, [{ status: 429, retryAfter: '1' }]);
    const sent = await send('carol');
    await until(() => receivedBy(browser.subscription.id), {
      accept: (pushes) => pushes.length === 1,
      what: 'the push after the retry',
      timeoutMs: 15_000,
    });
    expect(
      pushService.answered.filter((a) => a.subscriptionId === browser.subscription.id).map((a) => a.status),
    ).toEqual([429, 201]);
    expect(await until(() => attemptOf(sent.id, browser.browserId), { accept: (a) => a.via === 'push' })).toMatchObject(
      { status: 'sent' },
    );
    await quietPeriod(1500, 'no second push of the attempt');
    expect(receivedBy(browser.subscription.id)).toHaveLength(1);
  });

  it('fails the attempt (push_rejected) when the push service refuses the message for good', async () => {
    const browser = await subscribedBrowser('erin');
    pushService.script(browser.subscription.id, [{ status: 413 }]);
    const sent = await send('erin');
    expect(
      await until(() => attemptOf(sent.id, browser.browserId), { accept: (a) => a.final, what: 'the failed attempt' }),
    ).toMatchObject({ status: 'failed', reason: 'push_rejected', via: null });
  });

  it('disconnects the browser when its subscription is gone (410): a later send answers 409', async () => {
    const browser = await subscribedBrowser('dave');
    pushService.expire(browser.subscription.id);
    const sent = await send('dave');
    expect(
      await until(() => attemptOf(sent.id, browser.browserId), {
        accept: (a) => a.final,
        what: 'the attempt failed with its browser',
      }),
    ).toMatchObject({ status: 'failed', reason: 'browser_disconnected' });
    const later = await api('/v1/notifications', { json: { recipient: 'dave', title: 'Again' } });
    expect(later.status).toBe(409);
    expect((await later.json()).code).toBe('NO_CONNECTED_BROWSER');
  });

  it('sends each queued push exactly once after kill -9 and a restart', async () => {
    const browser = await subscribedBrowser('frank');
    const sent = [await send('frank'), await send('frank'), await send('frank')];
    // Within the grace: the jobs are queued, none has run.
    server!.child.kill('SIGKILL');
    await server!.exited;
    expect(receivedBy(browser.subscription.id)).toEqual([]);
    server = await serve();
    await until(() => receivedBy(browser.subscription.id), {
      accept: (pushes) => pushes.length === 3,
      what: 'the three pushes after the restart',
      timeoutMs: 15_000,
    });
    await quietPeriod(GRACE_MS + 1000, 'no push sent twice');
    const attemptIds = receivedBy(browser.subscription.id).map(
      (push) => JSON.parse(push.payload).notification.attempt_id,
    );
    // In the order of the sends: one browser's pushes go one at a time, in order.
    expect(attemptIds).toEqual(sent.map((notification) => notification.attempts[0]!.id));
  });
});
