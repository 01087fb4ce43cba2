import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { until } from '@tidings/core/testing';
import { assertBuilt, type ServeProcess, startServe, tempDir, tidingsJson } from '@tidings/test-support/cli-process.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutFindings, signInWithCode, submit, verifiedAccount } from './dashboard-harness.js';
import { launchChromium } from './harness.js';

/**
 * A customer chasing a lost notification in Chromium, through `tidings serve`: a send refused
 * with 409 (its recipient never connected), found from the log of sends by its recipient and by
 * its error code, and exported; a delivered notification whose webhook endpoint answered 500,
 * then 200, read on its timeline, each entry a link. Every page at 1280 and 390 px, axe clean;
 * screenshots go to `test-artifacts/dashboard/`.
 */

let workspace: Awaited<ReturnType<typeof tempDir>>;
let db = '';
let server: ServeProcess;
let browser: Browser;
let receiver: Server;
let receiverUrl = '';
const answers: number[] = [];
let projectId = '';
let liveKey = '';

const signIn = (context: BrowserContext): Promise<Page> => signInWithCode(context, server, db, 'ada@example.com');

async function api(path: string, body: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${liveKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, requestId: response.headers.get('Request-Id') ?? '', json: await response.json() };
}

beforeAll(async () => {
  assertBuilt();
  // The endpoint answers its first request 500, then 200.
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const status = answers.length === 0 ? 500 : 200;
      answers.push(status);
      response.writeHead(status, { 'Content-Type': 'text/plain' }).end(status === 500 ? 'down for a moment' : 'ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  workspace = await tempDir();
  db = join(workspace.dir, 'timeline.db');
  const ownerId = await verifiedAccount(db);
  projectId = (
    await tidingsJson<{ id: string }>(['project', 'create', '--account', ownerId, '--name', 'Shop', '--db', db])
  ).id;
  liveKey = (
    await tidingsJson<{ key: string }>(['key', 'create', '--project', projectId, '--mode', 'live', '--db', db])
  ).key;
  server = await startServe(['--db', db, '--port', '0', '--webhooks-allow-http', '--webhooks-allow-private']);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (server?.child.exitCode === null) server.child.kill('SIGTERM');
  await server?.exited;
  await new Promise((resolve) => receiver?.close(resolve));
  await workspace?.remove();
});

describe('a lost notification, chased in the dashboard', () => {
  it('walks a refused send, a failing-then-fixed webhook and a delivered notification through the timeline, filters and export', async () => {
    const context = await browser.newContext();
    const findings: string[] = [];
    try {
      const page = await signIn(context);
      const root = `${server.url}/dashboard/projects/${projectId}`;

      // The endpoint, made in the page.
      await page.goto(`${root}/webhooks`);
      await page.getByLabel('Endpoint URL').fill(receiverUrl);
      for (const box of await page.locator('input[name="events"]').all()) await box.setChecked(false);
      await page.locator('input[name="events"][value="notification.completed"]').setChecked(true);
      await submit(page, 'Create endpoint');

      // A send refused: its recipient never connected.
      const refused = await api('/v1/notifications', { recipient: 'bob', title: 'Your order shipped' });
      expect(refused.status).toBe(409);
      // A send delivered: the recipient's browser polls, then confirms it.
      const token = await api('/v1/connect-tokens', { recipient: 'carol' });
      const registered = await (await fetch(token.json.connect_url, { method: 'POST' })).json();
      const sent = await api('/v1/notifications', { recipient: 'carol', title: 'Your refund is on its way' });
      expect(sent.status).toBe(201);
      const receipt = await fetch(`${server.url}/v1/events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          browser_id: registered.browser_id,
          browser_secret: registered.browser_secret,
          events: [{ type: 'delivered', attempt_id: sent.json.attempts[0].id }],
        }),
      });
      expect(receipt.status).toBe(202);
      // The endpoint refused the completed event once, then took its retry (within 5 s).
      await until(() => answers.join(','), {
        accept: (seen) => seen === '500,200',
        timeoutMs: 20_000,
        what: '500 then 200',
      });

      // The log of sends, for bob: nothing sent, and the way to the refused request.
      await page.goto(`${root}/log?recipient=bob`);
      expect(await page.locator('main').textContent()).toContain('A refused send makes no notification');
      findings.push(...(await layoutFindings(page, 'walk-log-refused')));
      await until(
        async () => {
          await page.goto(`${root}/log?recipient=bob`);
          return page.locator('a[data-link="refused-requests"]').count();
        },
        { accept: (count) => count === 1, what: 'the refused request in the log' },
      );
      await page.locator('a[data-link="refused-requests"]').click();
      await page.waitForURL(/\/requests\?recipient=bob$/);
      const rows = page.locator('tr[data-request-id]');
      expect(await rows.evaluateAll((found) => found.map((row) => row.getAttribute('data-request-id')))).toEqual([
        refused.requestId,
      ]);
      // The same by its error code, the filters kept in the URL.
      await page.getByLabel('Error code').selectOption('NO_CONNECTED_BROWSER');
      await submit(page, 'Search');
      expect(page.url()).toContain('code=NO_CONNECTED_BROWSER');
      expect(page.url()).toContain('recipient=bob');
      expect(await rows.count()).toBe(1);
      findings.push(...(await layoutFindings(page, 'walk-requests-filtered')));
      // Exported for the filters, without the key.
      const ndjson = await page.request.get(
        `${server.url}${await page.locator('a[data-export="ndjson"]').getAttribute('href')}`,
      );
      const exported = await ndjson.text();
      expect(
        exported
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line).id),
      ).toEqual([refused.requestId]);
      expect(exported).not.toContain(liveKey);
      const csv = await page.request.get(
        `${server.url}${await page.locator('a[data-export="csv"]').getAttribute('href')}`,
      );
      expect((await csv.text()).split('\r\n')[1]).toContain(refused.requestId);
      // Its page, with the request as curl and no key.
      await rows.first().getByRole('link').click();
      await page.waitForURL(new RegExp(`/requests/${refused.requestId}$`));
      expect(await page.textContent('[data-field="curl"]')).toContain('$TIDINGS_API_KEY');
      expect(await page.textContent('main')).not.toContain(liveKey);
      findings.push(...(await layoutFindings(page, 'walk-request-curl')));

      // The delivered notification's timeline: the send, the attempt, the webhook's 500 and 200.
      await page.goto(`${root}/notifications/${sent.json.id}`);
      const timeline = page.locator('ol.timeline li');
      const whats = await timeline.locator('strong').allTextContents();
      expect(whats[0]).toBe('POST /v1/notifications: 201');
      expect(whats).toContain('delivered');
      const webhook = whats.filter((what) => what.startsWith('webhook request'));
      expect(webhook).toEqual(['webhook request: HTTP 500', 'webhook request: HTTP 200']);
      expect(await page.locator('dd[data-field="status"] [data-outcome]').textContent()).toBe('delivered');
      findings.push(...(await layoutFindings(page, 'walk-timeline')));
      // Each entry is a link to its own page: the webhook's request leads to its message.
      await timeline.filter({ hasText: 'HTTP 500' }).getByRole('link').click();
      await page.waitForURL(/\/messages\/msg_/);
      expect(await page.textContent('[data-field="notification"]')).toContain(sent.json.id);
      findings.push(...(await layoutFindings(page, 'walk-webhook-message')));
      // The endpoint's messages, searched by the notification.
      await page.goto(`${root}/notifications/${sent.json.id}`);
      await page.locator('a[data-link="webhook-messages"]').click();
      await page.waitForURL(/notification=ntf_/);
      expect(await page.locator('tr[data-message-id]').count()).toBe(1);
      findings.push(...(await layoutFindings(page, 'walk-webhook-messages')));
      expect(findings).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
