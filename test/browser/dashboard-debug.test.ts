import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from '@tidings/core/testing';
import { assertBuilt, type ServeProcess, startServe, tempDir, tidingsJson } from '@tidings/test-support/cli-process.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutFindings, seriousAxeViolations, signInWithCode, submit, verifiedAccount } from './dashboard-harness.js';
import { launchChromium } from './harness.js';

/**
 * Debugging a send in the dashboard: a notification sent through the public API with a named key
 * and an Idempotency-Key, delivered to a connected browser; from the log its title leads to its
 * page, which shows the request and each attempt with its receipts. Usage over a chosen range.
 * Screenshots at 1280 and 390 px go to `test-artifacts/dashboard/`.
 */

const artifacts = fileURLToPath(new URL('../../test-artifacts/dashboard/', import.meta.url));
const TITLE = 'Your order <b>shipped</b>';
const IDEMPOTENCY_KEY = 'order-42-shipped';
const KEY_NAME = 'checkout-server';

let workspace: Awaited<ReturnType<typeof tempDir>>;
let db: string;
let server: ServeProcess;
let browser: Browser;
let context: BrowserContext;
let projectId = '';
let liveKey = '';
let notificationId = '';
let requestId = '';

const signIn = (email: string): Promise<Page> => signInWithCode(context, server, db, email);

/** Reads server-sent events off a stream until one of `type` arrives; its data. */
async function nextEvent(reader: ReadableStreamDefaultReader<Uint8Array>, type: string, buffer: { text: string }) {
  const decoder = new TextDecoder();
  for (;;) {
    const blocks = buffer.text.split('\n\n');
    for (const [index, block] of blocks.slice(0, -1).entries()) {
      const lines = block.split('\n');
      if (lines.includes(`event: ${type}`)) {
        buffer.text = blocks.slice(index + 1).join('\n\n');
        const data = lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice(6));
        return JSON.parse(data.join('\n')) as Record<string, unknown>;
      }
    }
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before a ${type} event`);
    buffer.text += decoder.decode(value, { stream: true });
  }
}

beforeAll(async () => {
  assertBuilt();
  workspace = await tempDir();
  db = join(workspace.dir, 'debug.db');
  const ownerId = await verifiedAccount(db);
  const project = await tidingsJson<{ id: string }>([
    'project',
    'create',
    '--account',
    ownerId,
    '--name',
    'Shop',
    '--db',
    db,
  ]);
  projectId = project.id;
  liveKey = (
    await tidingsJson<{ key: string }>([
      'key',
      'create',
      '--project',
      projectId,
      '--mode',
      'live',
      '--name',
      KEY_NAME,
      '--db',
      db,
    ])
  ).key;
  server = await startServe(['--db', db, '--port', '0']);

  const headers = { Authorization: `Bearer ${liveKey}`, 'Content-Type': 'application/json' };
  const token = (await (
    await fetch(`${server.url}/v1/connect-tokens`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ recipient: 'user_42' }),
    })
  ).json()) as { connect_url: string };
  const stream = await fetch(new URL(token.connect_url, server.url), { headers: { Accept: 'text/event-stream' } });
  const reader = stream.body!.getReader();
  const buffer = { text: '' };
  const ready = await nextEvent(reader, 'ready', buffer);
  const sent = await fetch(`${server.url}/v1/notifications`, {
    method: 'POST',
    headers: { ...headers, 'Idempotency-Key': IDEMPOTENCY_KEY },
    body: JSON.stringify({
      recipient: 'user_42',
      title: TITLE,
      body: 'Track it <script>alert(1)</script>',
      url: 'https://shop.example/orders/42',
      data: { order: 42 },
    }),
  });
  expect(sent.status).toBe(201);
  requestId = sent.headers.get('Request-Id') ?? '';
  notificationId = ((await sent.json()) as { id: string }).id;
  // The browser gets it on its stream and confirms it, then shows it.
  const delivered = await nextEvent(reader, 'notification', buffer);
  const receipt = await fetch(`${server.url}/v1/events`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      browser_id: ready.browser_id,
      browser_secret: ready.browser_secret,
      events: [
        { type: 'delivered', attempt_id: delivered.attempt_id },
        { type: 'displayed', attempt_id: delivered.attempt_id },
      ],
    }),
  });
  expect(receipt.status).toBe(202);
  await reader.cancel();

  browser = await launchChromium();
  context = await browser.newContext();
});

afterAll(async () => {
  await browser?.close();
  server?.child.kill();
  await server?.exited;
  await workspace?.remove();
});

describe('debugging a send in the dashboard', () => {
  it('leads from the log, by the title, to the request and the attempt with its receipts', async () => {
    await mkdir(artifacts, { recursive: true });
    const page = await signIn('ada@example.com');
    await page.goto(`${server.url}/dashboard/projects/${projectId}/log`);
    await page.getByRole('link', { name: TITLE }).click();
    await page.waitForURL(new RegExp(`/notifications/${notificationId}$`));

    const field = (name: string) => page.locator(`dd[data-field="${name}"]`).textContent();
    expect(await field('key')).toContain(liveKey.slice(0, 12));
    expect(await field('key')).toContain(KEY_NAME);
    expect(await field('request-id')).toBe(requestId);
    expect(await field('idempotency-key')).toBe(IDEMPOTENCY_KEY);
    const main = (await page.textContent('main')) ?? '';
    expect(main).not.toContain(liveKey);
    expect(main).toContain('"title": "Your order <b>shipped</b>"');
    expect(main).toContain('<script>alert(1)</script>');
    expect(await page.locator('main b, main script').count()).toBe(0);

    // The record of sending lands in batches: the page shows it once it has.
    const attempt = page.locator('tr[data-attempt-id]');
    await until(
      async () => {
        await page.reload();
        return page.locator('tr[data-attempt-id] td[data-receipt="sent"] time').count();
      },
      { what: 'the attempt recorded as sent', accept: (count) => count === 1 },
    );
    expect(await attempt.count()).toBe(1);
    expect(await attempt.locator('.badge').textContent()).toBe('delivered');
    for (const receipt of ['delivered', 'displayed']) {
      expect(await attempt.locator(`td[data-receipt="${receipt}"] time`).count()).toBe(1);
    }
    for (const receipt of ['clicked', 'dismissed', 'expired', 'failed']) {
      expect(await attempt.locator(`td[data-receipt="${receipt}"] time`).count()).toBe(0);
    }

    expect(await layoutFindings(page, 'debug-notification', { reload: true })).toEqual([]);
    await page.close();
  });

  it('shows usage over a chosen range, live and test, sent and delivered, and refuses a bad range', async () => {
    const page = await context.newPage();
    await page.goto(`${server.url}/dashboard/projects/${projectId}/usage`);
    const today = new Date().toISOString().slice(0, 10);
    expect(await page.getByLabel('To (UTC day)').inputValue()).toBe(today);
    await page.getByLabel('From (UTC day)').fill(today);
    await submit(page, 'Show');
    expect(new URL(page.url()).searchParams.get('from')).toBe(today);
    expect(await page.locator('tr[data-date]').count()).toBe(1);
    const cells = await page.locator(`tr[data-date="${today}"] td`).allTextContents();
    // live notifications, live attempts, sent, delivered, test notifications
    expect(cells).toEqual(['1', '1', '1', '1', '0']);
    expect(await page.locator('svg.chart').count()).toBe(2);
    expect(await page.locator('.legend').first().textContent()).toContain('live notifications');

    expect(await layoutFindings(page, 'debug-usage', { reload: true })).toEqual([]);

    const refused = await page.goto(`${server.url}/dashboard/projects/${projectId}/usage?from=${today}&to=2000-01-01`);
    expect(refused?.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toContain('Choose other dates, then show the usage again.');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.close();
  });
});
