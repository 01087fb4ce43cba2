// Web Push end to end in Chromium: a customer's page loads tidings-push.global.js, enables push
// from a click, and a real `tidings serve` pushes to a push service of the tests' own
// (test/support/push-service.ts), which decrypts the message as a browser's would. Chromium here
// reaches no browser vendor's push service, so the page's PushManager.subscribe and
// getSubscription alone are stubbed, returning a subscription whose endpoint is the local push
// service and whose keys are that service's real P-256 key pair and auth secret. The decrypted
// message is then handed to the real service worker through the DevTools protocol
// (`ServiceWorker.deliverPushMessage`); everything else is what a user's browser does.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  assertBuilt,
  createKeyWithCli,
  createProjectWithCli,
  type ServeProcess,
  startServe,
  tempDir,
  tidingsJson,
} from '@tidings/test-support/cli-process.js';
import { startTestPushService, type TestPushService } from '@tidings/test-support/push-service.js';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchChromium, until, watchPage } from './harness.js';

const dist = (name: string) => fileURLToPath(new URL(`../../packages/browser/dist/${name}`, import.meta.url));

interface Attempt {
  id: string;
  browser_id: string;
  status: string;
  via: string | null;
  push_accepted_at: string | null;
  delivered_at: string | null;
  displayed_at: string | null;
}
interface NotificationObject {
  id: string;
  status: string;
  attempts: Attempt[];
}

/** The grace the server waits before it pushes (its default), and a margin for a slow machine. */
const graceMs = 4000;
const afterGraceMs = graceMs + 3000;

declare global {
  interface Window {
    __pushConnection: {
      browserId(): string | null;
      enablePush(options?: { serviceWorker?: string }): Promise<unknown>;
      disablePush(): Promise<void>;
    };
    __pushStatuses: string[];
    __pushReceived: { attempt_id: string; notification_id: string; title: string }[];
    /** What the last click on "Enable" or "Disable" gave: the result, or the error's code. */
    __push: { done: 'enabled' | 'disabled'; result?: unknown } | { error: string; message: string } | null;
    /** The applicationServerKey the page subscribed with, base64url. */
    __subscribedWith: string | null;
    __unsubscribed: number;
    /** The statuses the server answered the page's PUTs of its subscription with, in order. */
    __subscriptionPuts: number[];
  }
}

/**
 * The customer's page: the SDK with push from its own origin, a connect token from its own back
 * end, and two buttons, so that enablePush() runs in a user's click.
 */
function pageHtml(tidingsUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Customer app</title><link rel="icon" href="data:,"></head>
<body><button id="enable">Turn on notifications</button><button id="disable">Turn them off</button>
<script src="/tidings-push.global.js"></script>
<script>
  window.__pushStatuses = [];
  window.__pushReceived = [];
  window.__push = null;
  window.__pushConnection = Tidings.connect({
    baseUrl: ${JSON.stringify(tidingsUrl)},
    getToken: async () => (await fetch('/token', { method: 'POST' })).text(),
    onNotification: (notification) => window.__pushReceived.push(notification),
    onStatus: (status) => window.__pushStatuses.push(status),
  });
  const record = (promise, done) =>
    promise.then(
      (result) => (window.__push = { done, result }),
      (error) => (window.__push = { error: error.code, message: error.message }),
    );
  document.getElementById('enable').onclick = () =>
    record(window.__pushConnection.enablePush({ serviceWorker: '/tidings-sw.js' }), 'enabled');
  document.getElementById('disable').onclick = () => record(window.__pushConnection.disablePush(), 'disabled');
</script></body></html>`;
}

/** The customer's web server: the page, the SDK, the service worker, and the token endpoint. */
async function startSite(tidingsUrl: string, key: string, recipient: string): Promise<{ url: string; server: Server }> {
  const files: Record<string, string> = {
    '/tidings-push.global.js': readFileSync(dist('tidings-push.global.js'), 'utf8'),
    '/tidings-sw.js': readFileSync(dist('tidings-sw.js'), 'utf8'),
  };
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://site.test').pathname;
    const script = files[path];
    if (script) {
      res.writeHead(200, { 'Content-Type': 'text/javascript', 'Cache-Control': 'no-store' }).end(script);
    } else if (path === '/token' && req.method === 'POST') {
      const minted = await fetch(`${tidingsUrl}/v1/connect-tokens`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ recipient }),
      });
      res.writeHead(minted.status === 201 ? 200 : 502).end(((await minted.json()) as { token?: string }).token ?? '');
    } else if (path === '/blank') {
      // A page of the site without the SDK, to read what its service worker shows.
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<!doctype html><title>blank</title>');
    } else if (path === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(pageHtml(tidingsUrl));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A subscription of the local push service, as the stub hands it out. */
type StubSubscription = { endpoint: string; p256dh: string; auth: string };

/**
 * Stubs PushManager's subscribe and getSubscription in the page (before its scripts run): each
 * subscribe hands out the next of `subscriptions` (subscriptions of the local push service, with
 * their real keys), as a browser makes a new one after an unsubscribe; the rest is Chromium's.
 */
function stubPushManager(page: Page, subscriptions: StubSubscription[]) {
  return page.addInitScript((list) => {
    let made = 0;
    const toBase64Url = (buffer: ArrayBuffer) =>
      btoa(String.fromCharCode(...new Uint8Array(buffer)))
        .replace(/\+/g, '-')
        .replace(/\//g, '_')
        .replace(/=+$/, '');
    const fromBase64Url = (text: string) =>
      Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (char) => char.charCodeAt(0)).buffer;
    let current: unknown = null;
    window.__subscribedWith = null;
    window.__unsubscribed = 0;
    window.__subscriptionPuts = [];
    // Watched, not changed: the answers to the SDK's PUT of the subscription.
    const realFetch = window.fetch;
    window.fetch = async (input, init) => {
      const response = await realFetch(input, init);
      if (init?.method === 'PUT' && String(input).endsWith('/push-subscription')) {
        window.__subscriptionPuts.push(response.status);
      }
      return response;
    };
    PushManager.prototype.subscribe = async function subscribe(options?: PushSubscriptionOptionsInit) {
      if (options?.userVisibleOnly !== true) throw new DOMException('userVisibleOnly is required', 'NotAllowedError');
      const key = options.applicationServerKey;
      if (!(key instanceof Uint8Array) && !(key instanceof ArrayBuffer)) throw new TypeError('no applicationServerKey');
      const applicationServerKey = new Uint8Array(key instanceof Uint8Array ? key : new Uint8Array(key)).slice().buffer;
      window.__subscribedWith = toBase64Url(applicationServerKey);
      const given = list[Math.min(made++, list.length - 1)]!;
      const subscription = {
        endpoint: given.endpoint,
        expirationTime: null,
        options: { applicationServerKey, userVisibleOnly: true },
        getKey: (name: string) => fromBase64Url(name === 'p256dh' ? given.p256dh : given.auth),
        toJSON: () => ({
          endpoint: given.endpoint,
          expirationTime: null,
          keys: { p256dh: given.p256dh, auth: given.auth },
        }),
        unsubscribe: async () => {
          current = null;
          window.__unsubscribed += 1;
          return true;
        },
      };
      current = subscription;
      return subscription as unknown as PushSubscription;
    };
    PushManager.prototype.getSubscription = async function getSubscription() {
      return current as PushSubscription | null;
    };
  }, subscriptions);
}

let workspace: Awaited<ReturnType<typeof tempDir>>;
let db: string;
let tidings: ServeProcess;
let browser: Browser;
const keys = { live: '', read: '' };

beforeAll(async () => {
  assertBuilt();
  workspace = await tempDir();
  db = join(workspace.dir, 'tidings.db');
  const { projectId } = await createProjectWithCli(db, 'Shop');
  keys.live = (await createKeyWithCli(db, projectId, 'live')).key;
  keys.read = (await createKeyWithCli(db, projectId, 'test')).key;
  tidings = await serve(0);
  browser = await launchChromium();
});

function serve(port: number): Promise<ServeProcess> {
  return startServe([
    '--db',
    db,
    '--port',
    String(port),
    '--vapid-subject',
    'mailto:ops@shop.example',
    // The local push service: http on a loopback address, for tests only.
    '--push-allow-hosts',
    '127.0.0.1',
    '--push-allow-http',
    '--push-allow-private',
  ]);
}

afterAll(async () => {
  await browser?.close();
  if (tidings && tidings.child.exitCode === null) {
    tidings.child.kill('SIGTERM');
    await tidings.exited;
  }
  await workspace?.remove();
});

async function api<T>(path: string, key: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${tidings.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

async function send(recipient: string, title: string): Promise<NotificationObject> {
  const sent = await api<NotificationObject>('/v1/notifications', keys.live, { recipient, title });
  expect(sent.status, JSON.stringify(sent.body)).toBe(201);
  return sent.body;
}

const read = async (id: string) => (await api<NotificationObject>(`/v1/notifications/${id}`, keys.read)).body;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Closes the site's tab and gives the server a moment to see its stream end, so that the next
 * send finds no open stream (rather than racing the socket's close).
 */
async function closeTab(page: Page) {
  await page.close();
  await sleep(1000);
}

let pushService: TestPushService;
let site: { url: string; server: Server };
let context: BrowserContext;
let watchers: ReturnType<typeof watchPage>[];
let recipientCount = 0;
let recipient: string;

beforeEach(async () => {
  pushService = await startTestPushService();
  recipient = `push-user-${++recipientCount}`;
  site = await startSite(tidings.url, keys.live, recipient);
  context = await browser.newContext();
  await context.grantPermissions(['notifications'], { origin: site.url });
  watchers = [];
});

afterEach(async () => {
  await context?.close();
  await new Promise<void>((resolve) => {
    site.server.closeAllConnections();
    site.server.close(() => resolve());
  });
  // An exception thrown in a page fails the test.
  expect(watchers.flatMap((watcher) => watcher.pageErrors)).toEqual([]);
});

/**
 * A tab of the site with the stubbed subscription, connected, with push enabled by a click.
 * Resolves with the tab, the browser id, and the local push service's subscription.
 */
async function openTabWithPush(later: StubSubscription[] = []) {
  const subscription = pushService.subscribe();
  const page = await context.newPage();
  const watcher = watchPage(page);
  watchers.push(watcher);
  await stubPushManager(page, [subscription, ...later]);
  await page.goto(site.url);
  const browserId = await until(
    () => page.evaluate(() => (window.__pushStatuses.includes('open') ? window.__pushConnection.browserId() : null)),
    (id) => id !== null,
    'the page connected',
  ).catch(async (error: Error) => {
    throw new Error(`${error.message}\n${await watcher.describe()}`);
  });
  await page.click('#enable');
  const outcome = await until(
    () => page.evaluate(() => window.__push),
    (value) => value !== null,
    'enablePush() settled',
  );
  expect(outcome).toMatchObject({ done: 'enabled', result: { object: 'push_subscription', browser_id: browserId } });
  expect(outcome).toMatchObject({ result: { endpoint_host: new URL(subscription.endpoint).host } });
  return { page, browserId: browserId!, subscription };
}

/** A DevTools session on a page of the context that stays open, and the site's worker registration. */
async function workerControl(holder: Page) {
  const cdp: CDPSession = await context.newCDPSession(holder);
  // Each registration as its latest update left it: an earlier test's registration of the same
  // scope may be reported first and deleted after, and a push to it would reach no worker.
  const registrations = new Map<string, { registrationId: string; scopeURL: string; isDeleted: boolean }>();
  cdp.on(
    'ServiceWorker.workerRegistrationUpdated',
    (event: { registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] }) => {
      for (const updated of event.registrations) registrations.set(updated.registrationId, updated);
    },
  );
  await cdp.send('ServiceWorker.enable');
  const registration = await until(
    async () => [...registrations.values()].reverse().find((r) => r.scopeURL === `${site.url}/` && !r.isDeleted),
    Boolean,
    'the site’s service worker registration',
  );
  return {
    deliver: (data: string) =>
      cdp.send('ServiceWorker.deliverPushMessage', {
        origin: site.url,
        registrationId: registration!.registrationId,
        data,
      }),
  };
}

/** The notifications the site's service worker is showing, read from a page of the site. */
const showing = (page: Page) =>
  page.evaluate(async () =>
    (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
      title: n.title,
      tag: n.tag,
      attemptId: (n.data as { attempt_id?: string } | null)?.attempt_id ?? null,
    })),
  );

describe('Web Push through tidings-push.global.js and tidings-sw.js', () => {
  it('reaches a browser whose tab is closed: pushed after the grace, shown by the worker, displayed via push', async () => {
    const { page, browserId, subscription } = await openTabWithPush();
    // The page subscribed with the deployment's VAPID key, the one the push service then sees.
    const subscribedWith = await page.evaluate(() => window.__subscribedWith);
    const holder = await context.newPage(); // about:blank, holds the DevTools session
    const worker = await workerControl(holder);
    await closeTab(page);

    const notification = await send(recipient, 'Your order shipped');
    expect(notification.attempts.map((a) => [a.browser_id, a.status])).toEqual([[browserId, 'accepted']]);
    const pushed = await until(
      async () => pushService.received.find((message) => message.subscriptionId === subscription.id),
      Boolean,
      'the server pushed to the push service',
      20_000,
    );
    expect(pushService.rejected).toEqual([]);
    expect(pushed!.vapidKey).toBe(subscribedWith);
    expect(pushed!.subject).toBe('mailto:ops@shop.example');
    const envelope = JSON.parse(pushed!.payload) as {
      tidings: number;
      browser_id: string;
      notification: { attempt_id: string; notification_id: string; title: string };
    };
    expect(envelope).toMatchObject({
      tidings: 1,
      browser_id: browserId,
      notification: { attempt_id: notification.attempts[0]!.id, notification_id: notification.id },
    });
    const accepted = await read(notification.id);
    expect(accepted.attempts[0]).toMatchObject({ via: 'push', push_accepted_at: expect.any(String) });

    // What the push service would hand the browser: the decrypted message, to the real worker.
    await worker.deliver(pushed!.payload);
    const displayed = await until(
      () => read(notification.id),
      (n) => n.attempts[0]?.displayed_at != null,
      'the worker’s delivered and displayed receipts reached the server',
    );
    expect(displayed.status).toBe('completed');
    expect(displayed.attempts[0]).toMatchObject({
      status: 'delivered',
      via: 'push',
      delivered_at: expect.any(String),
      displayed_at: expect.any(String),
    });
    const sitePage = await context.newPage();
    await sitePage.goto(`${site.url}/blank`);
    expect(await showing(sitePage)).toEqual([
      { title: 'Your order shipped', tag: `tidings:${notification.id}`, attemptId: notification.attempts[0]!.id },
    ]);
  });

  it('lets an open tab win: the stream delivers, nothing is pushed, and a late push shows nothing twice', async () => {
    const { page, browserId, subscription } = await openTabWithPush();
    const worker = await workerControl(page);
    const notification = await send(recipient, 'Seen in the tab');
    const attemptId = notification.attempts[0]!.id;
    await until(
      () => page.evaluate(() => window.__pushReceived.map((n) => n.attempt_id)),
      (ids) => ids.includes(attemptId),
      'the stream handed the notification to the page',
    );
    const delivered = await until(
      () => read(notification.id),
      (n) => n.attempts[0]?.status === 'delivered',
      'the tab’s delivered receipt',
    );
    // `stream`, or null when the tab's receipt came before the server recorded the stream's write
    // (the API reference says so of `via`); never `push`.
    expect(['stream', null]).toContain(delivered.attempts[0]?.via);
    await sleep(afterGraceMs);
    expect(pushService.answered.filter((a) => a.subscriptionId === subscription.id)).toEqual([]);
    const after = (await read(notification.id)).attempts[0];
    expect(after).toMatchObject({ status: 'delivered', push_accepted_at: null });
    expect(after?.via).toBe(delivered.attempts[0]?.via);

    // A push of the same attempt handed to the worker anyway (a push service's retry, a race):
    // dropped, because the tab noted the attempt. Another attempt after it shows, so the worker did run.
    const [received] = await page.evaluate(() => window.__pushReceived);
    await worker.deliver(JSON.stringify({ tidings: 1, browser_id: browserId, notification: received }));
    const control = { ...received!, attempt_id: 'att_control', notification_id: 'ntf_control', title: 'Control' };
    await worker.deliver(JSON.stringify({ tidings: 1, browser_id: browserId, notification: control }));
    await until(
      () => showing(page),
      (shown) => shown.some((n) => n.attemptId === 'att_control'),
      'the worker showed the control message',
    );
    await sleep(500);
    expect((await showing(page)).map((n) => n.attemptId)).toEqual(['att_control']);
  });

  it('disablePush() removes the subscription: a later send to the closed tab is not pushed and waits', async () => {
    const { page, browserId, subscription } = await openTabWithPush();
    await page.evaluate(() => {
      window.__push = null;
    });
    await page.click('#disable');
    expect(
      await until(
        () => page.evaluate(() => window.__push),
        (value) => value !== null,
        'disablePush() settled',
      ),
    ).toEqual({ done: 'disabled' });
    expect(await page.evaluate(() => window.__unsubscribed)).toBe(1);
    // The worker's record of the browser is gone too.
    const records = await page.evaluate(
      () =>
        new Promise<number>((resolve, reject) => {
          const request = indexedDB.open('tidings-push');
          request.onsuccess = () => {
            const count = request.result.transaction('browsers').objectStore('browsers').count();
            count.onsuccess = () => resolve(count.result);
          };
          request.onerror = () => reject(request.error);
        }),
    );
    expect(records).toBe(0);
    await closeTab(page);

    const notification = await send(recipient, 'While away');
    await sleep(afterGraceMs);
    expect(pushService.answered.filter((a) => a.subscriptionId === subscription.id)).toEqual([]);
    // As docs/web-push.md says: without a subscription the attempt waits for the browser's next
    // stream or poll (or its expiry, or the browser's reaping), as it did before Web Push.
    expect((await read(notification.id)).attempts).toMatchObject([
      { browser_id: browserId, status: 'accepted', via: null, push_accepted_at: null },
    ]);
  });
  // Last in the file: it restarts the server with another key pair.
  it('re-subscribes by itself after a key rotation, and the next push is signed with the new key', async () => {
    const renewed = pushService.subscribe();
    const { page, browserId } = await openTabWithPush([renewed]);
    const oldKey = await page.evaluate(() => window.__subscribedWith);

    const { port } = new URL(tidings.url);
    tidings.child.kill('SIGTERM');
    expect(await tidings.exited).toBe(0);
    const { public_key: newKey } = await tidingsJson<{ public_key: string }>(['vapid', 'rotate', '--db', db]);
    expect(newKey).not.toBe(oldKey);
    tidings = await serve(Number(port));

    // The SDK reconnects, resumes its browser, sees the new key in the connect answer, and
    // replaces the subscription without a click: unsubscribed, subscribed anew, sent again.
    await until(
      () => page.evaluate(() => window.__subscribedWith),
      (key) => key === newKey,
      'the page subscribed again with the new key',
      30_000,
    );
    expect(await page.evaluate(() => window.__unsubscribed)).toBe(1);
    expect(await page.evaluate(() => window.__pushConnection.browserId())).toBe(browserId);
    const holder = await context.newPage();
    const worker = await workerControl(holder);
    await until(
      () => page.evaluate(() => window.__subscriptionPuts),
      (statuses) => statuses.length === 2,
      'the renewed subscription sent to the server',
    );
    expect(await page.evaluate(() => window.__subscriptionPuts)).toEqual([200, 200]);
    await closeTab(page);

    const notification = await send(recipient, 'After the rotation');
    const pushed = await until(
      async () => pushService.received.find((message) => message.subscriptionId === renewed.id),
      Boolean,
      'the server pushed to the renewed subscription',
      20_000,
    );
    expect(pushed!.vapidKey).toBe(newKey);
    await worker.deliver(pushed!.payload);
    await until(
      () => read(notification.id),
      (n) => n.attempts[0]?.displayed_at != null,
      'displayed after the rotation',
    );
  });
});
