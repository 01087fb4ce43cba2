// tidings-sw.js in Chromium: a Web Push message handed to the real service worker through the
// DevTools protocol (no browser vendor's push service is reachable here) is shown as a system
// notification, and its receipts reach the server with the browser's stored secret.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { listening } from '@tidings/test-support/node-servers.js';
import type { Browser, CDPSession } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, until } from './harness.js';

const workerPath = fileURLToPath(new URL('../../packages/browser/dist/tidings-sw.js', import.meta.url));

interface PostedEvents {
  browser_id: string;
  browser_secret: string;
  events: { type: string; attempt_id: string }[];
}

/** The site (its page and its copy of tidings-sw.js) and, on the same origin, the receipts endpoint. */
async function startSite() {
  const posted: PostedEvents[] = [];
  const url = await listening(
    createServer(async (req, res) => {
      if (req.url === '/tidings-sw.js') {
        res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(readFileSync(workerPath));
      } else if (req.url === '/v1/events' && req.method === 'POST') {
        posted.push(JSON.parse(Buffer.concat(await req.toArray()).toString('utf8')) as PostedEvents);
        res.writeHead(202, { 'Content-Type': 'application/json' }).end('{"object":"receipt_batch","accepted":1}');
      } else {
        res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><title>site</title><main>site</main>');
      }
    }),
  );
  return { url, posted };
}

const envelope = (attemptId: string, title: string) =>
  JSON.stringify({
    tidings: 1,
    browser_id: 'brw_sw',
    notification: {
      attempt_id: attemptId,
      notification_id: `ntf_${attemptId}`,
      title,
      body: 'From the push service',
      url: '/inbox',
      icon: null,
      tag: null,
      data: null,
      created_at: '2026-11-25T08:00:00.000Z',
      expires_at: '2026-11-26T08:00:00.000Z',
    },
  });

describe('tidings-sw.js', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('shows a pushed notification once and reports delivered and displayed with the stored secret', async () => {
    const site = await startSite();
    const context = await browser.newContext();
    await context.grantPermissions(['notifications'], { origin: site.url });
    const page = await context.newPage();
    const cdp: CDPSession = await context.newCDPSession(page);
    const registrations: { registrationId: string; scopeURL: string }[] = [];
    cdp.on(
      'ServiceWorker.workerRegistrationUpdated',
      (event: { registrations: { registrationId: string; scopeURL: string }[] }) => {
        registrations.push(...event.registrations);
      },
    );
    await cdp.send('ServiceWorker.enable');
    await page.goto(site.url);
    // What enabling push leaves for the worker: the browser's credentials in the origin's IndexedDB
    // (written as a page of the database's first version did; the worker upgrades it).
    await page.evaluate(async (baseUrl) => {
      await navigator.serviceWorker.register('/tidings-sw.js');
      await navigator.serviceWorker.ready;
      await new Promise<void>((resolve, reject) => {
        const request = indexedDB.open('tidings-push', 1);
        request.onupgradeneeded = () => request.result.createObjectStore('browsers', { keyPath: 'browserId' });
        request.onerror = () => reject(request.error);
        request.onsuccess = () => {
          const transaction = request.result.transaction('browsers', 'readwrite');
          transaction.objectStore('browsers').put({ browserId: 'brw_sw', browserSecret: 'bs_stored', baseUrl });
          transaction.oncomplete = () => {
            request.result.close(); // as the SDK does, so that the worker's upgrade is not blocked
            resolve();
          };
          transaction.onerror = () => reject(transaction.error);
        };
      });
    }, site.url);
    const registration = await until(
      async () => registrations.find((r) => r.scopeURL === `${site.url}/`),
      Boolean,
      'the worker registered',
    );
    const push = (data: string) =>
      cdp.send('ServiceWorker.deliverPushMessage', {
        origin: site.url,
        registrationId: registration!.registrationId,
        data,
      });

    await push(envelope('att_1', 'Hello from push'));
    await until(
      async () => site.posted.length,
      (n) => n >= 1,
      'the receipts of the first push',
    );
    expect(site.posted[0]).toEqual({
      browser_id: 'brw_sw',
      browser_secret: 'bs_stored',
      events: [
        { type: 'delivered', attempt_id: 'att_1', at: expect.any(String) },
        { type: 'displayed', attempt_id: 'att_1', at: expect.any(String) },
      ],
    });
    const showing = () =>
      page.evaluate(async () =>
        (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
          title: n.title,
          tag: n.tag,
          body: n.body,
        })),
      );
    expect(await showing()).toEqual([
      { title: 'Hello from push', tag: 'tidings:ntf_att_1', body: 'From the push service' },
    ]);

    // The same attempt again (a retried push): no second notification, delivered only.
    await push(envelope('att_1', 'Hello from push'));
    await until(
      async () => site.posted.length,
      (n) => n >= 2,
      'the receipt of the repeated push',
    );
    expect(site.posted[1]?.events.map((e) => e.type)).toEqual(['delivered']);
    expect(await showing()).toHaveLength(1);

    // Another sender's message on the same registration is left alone.
    await push('{"hello":"world"}');
    await push(envelope('att_2', 'Second'));
    await until(
      async () => site.posted.length,
      (n) => n >= 3,
      'the receipts of the second attempt',
    );
    expect(site.posted[2]?.events.map((e) => [e.type, e.attempt_id])).toEqual([
      ['delivered', 'att_2'],
      ['displayed', 'att_2'],
    ]);
    expect((await showing()).map((n) => n.title).sort()).toEqual(['Hello from push', 'Second']);
    await context.close();
  });
});
