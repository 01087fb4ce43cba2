import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { until } from '@tidings/core/testing';
import { assertBuilt, type ServeProcess, startServe, tempDir, tidingsJson } from '@tidings/test-support/cli-process.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutFindings, signInWithCode, submit, verifiedAccount } from './dashboard-harness.js';
import { launchChromium } from './harness.js';

/**
 * "I never got it", in the dashboard: two sends refused by `tidings serve`, made with curl as a
 * back end's operator would (a 409 NO_CONNECTED_BROWSER and a 400 VALIDATION_FAILED), each found
 * on the project's Requests page by its request id and by its Idempotency-Key, with JavaScript
 * on (axe clean) and off. Screenshots at 1280 and 390 px go to `test-artifacts/dashboard/`.
 */

const run = promisify(execFile);

const IDEMPOTENCY_KEY = 'order-77-shipped';
const BAD_IDEMPOTENCY_KEY = 'order-78-shipped';

/** A POST made with curl: its status and its Request-Id header. */
async function curlPost(
  url: string,
  key: string,
  idempotencyKey: string,
  body: string,
): Promise<{ status: number; requestId: string }> {
  const { stdout } = await run('curl', [
    '-sS',
    '-D',
    '-',
    '-o',
    '/dev/null',
    '-X',
    'POST',
    url,
    '-H',
    `Authorization: Bearer ${key}`,
    '-H',
    'Content-Type: application/json',
    '-H',
    `Idempotency-Key: ${idempotencyKey}`,
    '--data',
    body,
  ]);
  return {
    status: Number(/^HTTP\/[\d.]+ (\d{3})/.exec(stdout)?.[1]),
    requestId: /^request-id: (\S+)/im.exec(stdout)?.[1] ?? '',
  };
}

let workspace: Awaited<ReturnType<typeof tempDir>>;
let db: string;
let server: ServeProcess;
let browser: Browser;
let projectId = '';
let liveKey = '';
let refusedId = '';
let invalidId = '';
let tokenRequestId = '';

const signIn = (context: BrowserContext): Promise<Page> => signInWithCode(context, server, db, 'ada@example.com');

beforeAll(async () => {
  assertBuilt();
  workspace = await tempDir();
  db = join(workspace.dir, 'requests.db');
  const ownerId = await verifiedAccount(db);
  projectId = (
    await tidingsJson<{ id: string }>(['project', 'create', '--account', ownerId, '--name', 'Shop', '--db', db])
  ).id;
  liveKey = (
    await tidingsJson<{ key: string }>(['key', 'create', '--project', projectId, '--mode', 'live', '--db', db])
  ).key;
  server = await startServe(['--db', db, '--port', '0']);
  const headers = { Authorization: `Bearer ${liveKey}`, 'Content-Type': 'application/json' };
  const sends = `${server.url}/v1/notifications`;
  const refused = await curlPost(
    sends,
    liveKey,
    IDEMPOTENCY_KEY,
    JSON.stringify({ recipient: 'user_77', title: 'Your order shipped', data: { order: 77 } }),
  );
  expect(refused.status).toBe(409);
  refusedId = refused.requestId;
  const invalid = await curlPost(sends, liveKey, BAD_IDEMPOTENCY_KEY, '{"recipient":"user_78"}');
  expect(invalid.status).toBe(400);
  invalidId = invalid.requestId;
  expect([refusedId, invalidId].every((id) => id.startsWith('req_'))).toBe(true);
  const token = await fetch(`${server.url}/v1/connect-tokens`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ recipient: 'user_77' }),
  });
  expect(token.status).toBe(201);
  tokenRequestId = token.headers.get('Request-Id') ?? '';
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  server?.child.kill();
  await server?.exited;
  await workspace?.remove();
});

/** The Requests page, reloaded until the writer has written the three requests. */
async function requestsPage(page: Page): Promise<void> {
  await until(
    async () => {
      await page.goto(`${server.url}/dashboard/projects/${projectId}/requests`);
      return page.locator('tr[data-request-id]').count();
    },
    { what: 'the three requests on the Requests page', accept: (count) => count === 3 },
  );
}

/** Searches the page's log for `text` and expects one row: the request `requestId`. */
async function searchFinds(page: Page, text: string, requestId: string): Promise<void> {
  await page.getByLabel('Request id, notification id, Idempotency-Key or recipient').fill(text);
  await submit(page, 'Search');
  const rows = page.locator('tr[data-request-id]');
  expect(await rows.count()).toBe(1);
  expect(await rows.first().getAttribute('data-request-id')).toBe(requestId);
}

describe('the Requests page in a browser', () => {
  it('finds the 409 by its Idempotency-Key and shows it whole, and the 400 by its request id, axe clean, with no secret', async () => {
    const context = await browser.newContext();
    try {
      const page = await signIn(context);
      await requestsPage(page);
      expect(await layoutFindings(page, 'requests')).toEqual([]);
      await page.getByLabel('Request id, notification id, Idempotency-Key or recipient').fill(IDEMPOTENCY_KEY);
      await submit(page, 'Search');
      const rows = page.locator('tr[data-request-id]');
      expect(await rows.count()).toBe(1);
      expect(await rows.first().getAttribute('data-request-id')).toBe(refusedId);
      expect(await rows.first().textContent()).toContain('NO_CONNECTED_BROWSER');
      await rows.first().getByRole('link').click();
      await page.waitForURL(new RegExp(`/requests/${refusedId}$`));
      expect(await page.locator('dd[data-field="idempotency-key"]').textContent()).toBe(IDEMPOTENCY_KEY);
      const main = (await page.textContent('main')) ?? '';
      expect(main).toContain('"title": "Your order shipped"');
      expect(main).toContain('"code": "NO_CONNECTED_BROWSER"');
      expect(main).not.toContain(liveKey);
      expect(await layoutFindings(page, 'request')).toEqual([]);

      await requestsPage(page);
      await searchFinds(page, invalidId, invalidId);
      expect(await page.locator('tr[data-request-id]').first().textContent()).toContain('VALIDATION_FAILED');

      await page.goto(`${server.url}/dashboard/projects/${projectId}/requests/${tokenRequestId}`);
      const minted = (await page.textContent('main')) ?? '';
      expect(minted).toContain('"token": "[redacted]"');
      expect(minted).not.toMatch(/ct_[A-Za-z0-9]{32}/);
    } finally {
      await context.close();
    }
  });

  it('filters, and finds the 409 by its request id and the 400 by its Idempotency-Key, with JavaScript off', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await signIn(context);
      await requestsPage(page);
      await page.getByLabel('Status').selectOption('4xx');
      await submit(page, 'Search');
      expect(page.url()).toContain('status=4xx');
      const rows = page.locator('tr[data-request-id]');
      // Newest first: the 400, then the 409; the connect token's 201 is filtered out.
      expect(await rows.evaluateAll((found) => found.map((row) => row.getAttribute('data-request-id')))).toEqual([
        invalidId,
        refusedId,
      ]);
      await page.getByLabel('Status').selectOption('');
      await searchFinds(page, tokenRequestId, tokenRequestId);
      await searchFinds(page, refusedId, refusedId);
      await searchFinds(page, BAD_IDEMPOTENCY_KEY, invalidId);
      expect(await layoutFindings(page, 'requests-no-script', { axe: false })).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
