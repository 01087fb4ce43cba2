import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  assertBuilt,
  createKeyWithCli,
  createProjectWithCli,
  type ServeProcess,
  startServe,
  tempDir,
} from '@tidings/test-support/cli-process.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launchChromium, type PageServer, startPageServer, until, watchPage } from './harness.js';

/**
 * The browser SDK as a customer's page uses it: Debian's Chromium (headless) opens a page served
 * from one origin, which loads `tidings.global.js` and connects to a real `tidings serve`
 * process on another origin, with a connect token minted by the page's own back end.
 */

interface Attempt {
  id: string;
  browser_id: string;
  status: string;
  final: boolean;
  reason: string | null;
  sent_at: string | null;
  delivered_at: string | null;
  failed_at: string | null;
}
interface Notification {
  id: string;
  mode: string;
  status: string;
  title: string;
  attempts: Attempt[];
}

let workspace: Awaited<ReturnType<typeof tempDir>>;
let db: string;
let configPath: string;
let tidings: ServeProcess;
let tidingsUrl: string;
let pageServer: PageServer;
let browser: Browser;
/** Keys by use, so that no test's polling eats another's rate limit (60 a minute per key). */
const keys = { token: '', send: '', read: '', test: '' };

function serve(port: number): Promise<ServeProcess> {
  return startServe(['--db', db, '--port', String(port), '--config', configPath]);
}

async function stopServe(process: ServeProcess): Promise<number | null> {
  if (process.child.exitCode === null) process.child.kill('SIGTERM');
  return process.exited;
}

beforeAll(async () => {
  assertBuilt();
  workspace = await tempDir();
  db = join(workspace.dir, 'tidings.db');
  const { projectId } = await createProjectWithCli(db, 'Shop');
  const key = async (mode: 'live' | 'test') => (await createKeyWithCli(db, projectId, mode)).key;
  keys.token = await key('live');
  keys.send = await key('live');
  keys.read = await key('test');
  keys.test = await key('test');
  // A short `retry:` hint, so that the restart test reconnects within a second or two rather than
  // after up to 12 s of default backoff; the backoff itself is unit-tested in the SDK.
  configPath = join(workspace.dir, 'config.json');
  await writeFile(configPath, JSON.stringify({ retryMs: 500 }));
  tidings = await serve(0);
  tidingsUrl = tidings.url;
  pageServer = await startPageServer(tidingsUrl, keys.token);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await pageServer?.close();
  if (tidings) await stopServe(tidings);
  await workspace?.remove();
});

function api(path: string, init: { method?: string; key: string; json?: unknown }): Promise<Response> {
  return fetch(`${tidingsUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { Authorization: `Bearer ${init.key}`, 'Content-Type': 'application/json' },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  });
}

/** `POST /v1/notifications` with the live key, as a customer's server does; expects 201. */
async function send(recipient: string, title: string): Promise<Notification> {
  const response = await api('/v1/notifications', { method: 'POST', key: keys.send, json: { recipient, title } });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body as Notification;
}

/** Polls `GET /v1/notifications/{id}` until `predicate` holds. */
function waitForNotification(id: string, predicate: (notification: Notification) => boolean, what: string) {
  return until(
    async () => {
      const response = await api(`/v1/notifications/${id}`, { key: keys.read });
      if (response.status === 429) {
        await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? 1) * 1000));
      }
      return (await response.json()) as Notification;
    },
    predicate,
    what,
  );
}

const allAttempts = (status: string) => (notification: Notification) =>
  notification.attempts.length > 0 && notification.attempts.every((attempt) => attempt.status === status);

let context: BrowserContext;
let watchers: ReturnType<typeof watchPage>[] = [];

beforeEach(async () => {
  // A fresh context per test: its own sessionStorage, so no test resumes another's browser.
  context = await browser.newContext();
  watchers = [];
});

afterEach(async () => {
  await context.close();
  // An exception thrown in a page (the SDK's or the test page's) fails the test.
  expect(watchers.flatMap((watcher) => watcher.pageErrors)).toEqual([]);
});

/**
 * A test page of the customer's origin, connected as `recipient`. `ack: 'manual'` turns
 * `autoDelivered` off; `beforeLoad` sees the page before it loads.
 */
async function openPage(recipient: string, options: { ack?: 'manual'; beforeLoad?: (page: Page) => unknown } = {}) {
  const page = await context.newPage();
  await options.beforeLoad?.(page);
  const watcher = watchPage(page);
  watchers.push(watcher);
  /** Waits until `condition` holds in the page; a timeout says what the page saw. */
  const waitFor = async (condition: () => boolean, what: string, timeoutMs = 15_000) => {
    try {
      await page.waitForFunction(condition, null, { timeout: timeoutMs, polling: 50 });
    } catch (error) {
      throw new Error(`waiting for ${what}: ${(error as Error).message.split('\n')[0]}\n${await watcher.describe()}`);
    }
  };
  const query = new URLSearchParams({ recipient, ...(options.ack ? { ack: options.ack } : {}) });
  await page.goto(`${pageServer.url}/?${query}`);
  await waitFor(() => window.__statuses.some((entry) => entry.status === 'open'), 'the connection to open');
  const browserId = await page.evaluate(() => window.__connection.browserId());
  expect(browserId).toMatch(/^brw_/);
  return { page, waitFor, browserId: browserId!, watcher };
}

const received = (page: Page) => page.evaluate(() => window.__received);
const statuses = (page: Page) => page.evaluate(() => window.__statuses);

describe('the browser SDK in Chromium, against tidings serve', () => {
  it('a page on another origin connects over SSE, gets a live send, and its automatic receipt makes it delivered', async () => {
    const streams: { status: number; contentType: string | undefined; cors: string | undefined }[] = [];
    const {
      page: alice,
      waitFor,
      browserId,
    } = await openPage('alice', {
      beforeLoad: (page) =>
        page.on('response', (response) => {
          if (!response.url().includes('/v1/connect/')) return;
          const headers = response.headers();
          streams.push({
            status: response.status(),
            contentType: headers['content-type'],
            cors: headers['access-control-allow-origin'],
          });
        }),
    });
    expect(new URL(pageServer.url).origin).not.toBe(new URL(tidingsUrl).origin);
    expect(await statuses(alice)).toContainEqual(
      expect.objectContaining({ status: 'open', browserId, resumed: false, transport: 'sse' }),
    );
    // The stream really is an event stream, answered to the page's origin.
    expect(streams[0]).toEqual({ status: 200, contentType: expect.stringMatching(/^text\/event-stream/), cors: '*' });

    const sent = await send('alice', 'Your order shipped');
    expect(sent.attempts).toEqual([expect.objectContaining({ browser_id: browserId, status: 'accepted' })]);
    await waitFor(() => window.__received.length >= 1, 'the notification');
    expect(await received(alice)).toEqual([
      expect.objectContaining({
        notification_id: sent.id,
        attempt_id: sent.attempts[0]!.id,
        title: 'Your order shipped',
      }),
    ]);

    const done = await waitForNotification(sent.id, allAttempts('delivered'), 'the attempt to be delivered');
    expect(done.status).toBe('completed');
    expect(done.attempts[0]).toMatchObject({ status: 'delivered', final: true, reason: null });
    expect(done.attempts[0]!.sent_at).not.toBeNull();
    expect(done.attempts[0]!.delivered_at).not.toBeNull();
  });

  it('a reload resumes the same browser and gets what was sent meanwhile, exactly once', async () => {
    // Receipts by hand: the first notification stays unreceipted across the reload, so the
    // server sends it again on resume and the SDK must drop it as already seen.
    const { page, waitFor, browserId } = await openPage('bob', { ack: 'manual' });
    const first = await send('bob', 'before the reload');
    await waitFor(() => window.__received.length >= 1, 'the first notification');
    const beforeReload = await waitForNotification(first.id, allAttempts('sent'), 'the first attempt to be sent');
    expect(beforeReload.attempts[0]!.final).toBe(false);

    // The reloaded document waits for its SDK script: the old page is gone, the new one not connected.
    const held = pageServer.holdNextScript();
    const reloading = page.reload();
    await held.requested;
    const meanwhile: Notification[] = [];
    for (const title of ['during the reload 1', 'during the reload 2', 'during the reload 3']) {
      meanwhile.push(await send('bob', title));
    }
    held.release();
    await reloading;

    await waitFor(() => window.__received.length >= 3, 'the three notifications sent during the reload');
    const open = (await statuses(page)).find((entry) => entry.status === 'open');
    expect(open).toMatchObject({ browserId, resumed: true, transport: 'sse' });
    // This document got the three, in order; the tab as a whole got each of the four once.
    expect((await received(page)).map((notification) => notification.title)).toEqual([
      'during the reload 1',
      'during the reload 2',
      'during the reload 3',
    ]);
    const log = await page.evaluate(() => window.__log);
    expect(log).toEqual([first, ...meanwhile].map((notification) => notification.attempts[0]!.id));

    await page.evaluate(() => window.__ackAll());
    for (const notification of [first, ...meanwhile]) {
      const done = await waitForNotification(
        notification.id,
        allAttempts('delivered'),
        `${notification.title} delivered`,
      );
      expect(done.attempts[0]!.browser_id).toBe(browserId);
    }
    // Nothing more arrived in the meantime: no late duplicate either.
    expect(await received(page)).toHaveLength(3);
  });

  it('a server restart on the same database: the SDK reconnects by itself and resumes the same browser', async () => {
    const { page, waitFor, browserId } = await openPage('carol', { ack: 'manual' });
    const unreceipted = await send('carol', 'just before the restart');
    await waitFor(() => window.__received.length >= 1, 'the notification before the restart');

    const { port } = new URL(tidingsUrl);
    expect(await stopServe(tidings)).toBe(0);
    // The server ended the stream on its way down; the SDK is retrying.
    await waitFor(
      () => window.__statuses.some((entry) => entry.status === 'reconnecting'),
      'the SDK to notice the shutdown',
    );
    tidings = await serve(Number(port));
    expect(tidings.url).toBe(tidingsUrl);

    await waitFor(
      () => window.__statuses.filter((entry) => entry.status === 'open').length >= 2,
      'the SDK to reconnect',
    );
    const reopened = (await statuses(page)).filter((entry) => entry.status === 'open')[1];
    expect(reopened).toMatchObject({ browserId, resumed: true, transport: 'sse' });

    const after = await send('carol', 'after the restart');
    expect(after.attempts).toEqual([expect.objectContaining({ browser_id: browserId })]);
    await waitFor(() => window.__received.length >= 2, 'the notification after the restart');
    // The unreceipted one was sent again on resume and dropped as a duplicate.
    expect((await received(page)).map((notification) => notification.attempt_id)).toEqual([
      unreceipted.attempts[0]!.id,
      after.attempts[0]!.id,
    ]);
    await page.evaluate(() => window.__ackAll());
    await waitForNotification(unreceipted.id, allAttempts('delivered'), 'the one before the restart delivered');
    await waitForNotification(after.id, allAttempts('delivered'), 'the one after the restart delivered');
  });

  it('disconnect() ends the browser: its pending attempts fail, and a new send finds no browser', async () => {
    const { page, waitFor } = await openPage('dave', { ack: 'manual' });
    const pending = [await send('dave', 'pending 1'), await send('dave', 'pending 2')];
    await waitFor(() => window.__received.length >= 2, 'both notifications');

    await page.evaluate(() => window.__connection.disconnect());
    await waitFor(
      () => window.__statuses.some((entry) => entry.status === 'closed' && entry.reason === 'disconnect'),
      'the closed status',
    );
    for (const notification of pending) {
      const done = await waitForNotification(notification.id, allAttempts('failed'), `${notification.title} failed`);
      expect(done.status).toBe('completed');
      expect(done.attempts[0]).toMatchObject({ final: true, reason: 'browser_disconnected' });
    }
    const refused = await api('/v1/notifications', {
      method: 'POST',
      key: keys.send,
      json: { recipient: 'dave', title: 'anyone there?' },
    });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: 'NO_CONNECTED_BROWSER' });
    // The tab forgot the browser: a reload would start a new one rather than resume a dead one.
    const stored = await page.evaluate((url) => sessionStorage.getItem(`tidings:${url}`), tidingsUrl);
    expect(stored).toBeNull();
  });

  it('a duplicated tab resumes the same browser: both tabs get each notification, and disconnect() in one ends both', async () => {
    const original = await openPage('frank');
    // "Duplicate tab" starts the new tab with a copy of the original's sessionStorage.
    const storage = await original.page.evaluate(() => Object.entries(sessionStorage));
    const duplicate = await openPage('frank', {
      beforeLoad: (page) =>
        page.addInitScript((entries) => {
          for (const [key, value] of entries) sessionStorage.setItem(key, value);
        }, storage),
    });
    expect(duplicate.browserId).toBe(original.browserId);
    expect(await statuses(duplicate.page)).toContainEqual(expect.objectContaining({ status: 'open', resumed: true }));

    const sent = await send('frank', 'to both tabs');
    expect(sent.attempts).toHaveLength(1);
    for (const tab of [original, duplicate]) {
      await tab.waitFor(() => window.__received.length >= 1, 'the notification in each tab');
      expect((await received(tab.page)).map((notification) => notification.attempt_id)).toEqual([sent.attempts[0]!.id]);
    }
    await waitForNotification(sent.id, allAttempts('delivered'), 'the shared attempt delivered');

    await duplicate.page.evaluate(() => window.__connection.disconnect());
    // The server ends the original's stream too; its reconnect is answered 204.
    await original.waitFor(
      () => window.__statuses.some((entry) => entry.status === 'closed' && entry.reason === 'disconnected'),
      'the original tab to learn that its browser was disconnected',
    );
  });

  it('a test key works from the page (CORS preflight passes) and a live key gets 403 with a readable problem', async () => {
    const { page, waitFor } = await openPage('erin');
    const attempt = (key: string) =>
      page.evaluate(
        async ({ url, key }) => {
          const response = await fetch(`${url}/v1/notifications`, {
            method: 'POST',
            // Authorization and a JSON body: not a simple request, so the browser preflights it.
            headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ recipient: 'erin', title: `from the page with ${key.slice(0, 7)}` }),
          });
          return {
            status: response.status,
            contentType: response.headers.get('content-type'),
            requestId: response.headers.get('request-id'),
            body: await response.json(),
          };
        },
        { url: tidingsUrl, key },
      );

    const withTestKey = await attempt(keys.test);
    expect(withTestKey.status).toBe(201);
    expect(withTestKey.requestId).toMatch(/^req_/);
    expect(withTestKey.body).toMatchObject({ mode: 'test', status: 'completed' });
    expect(withTestKey.body.attempts).toEqual([expect.objectContaining({ status: 'accepted', final: true })]);

    const withLiveKey = await attempt(keys.send);
    expect(withLiveKey).toMatchObject({
      status: 403,
      contentType: expect.stringMatching(/^application\/problem\+json/),
      requestId: expect.stringMatching(/^req_/),
      body: { code: 'FORBIDDEN', status: 403 },
    });

    // Test mode sends nothing: the stream is in order, so the live send arrives alone.
    await send('erin', 'live, from the server');
    await waitFor(() => window.__received.length > 0, 'the live notification');
    expect((await received(page)).map((notification) => notification.title)).toEqual(['live, from the server']);
  });
});
