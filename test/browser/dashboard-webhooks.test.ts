import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { webhookSignature } from '@tidings/core';
import { assertBuilt, type ServeProcess, startServe, tempDir } from '@tidings/test-support/cli-process.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutFindings, recordContext, seriousAxeViolations, signUpWithProject, submit } from './dashboard-harness.js';
import { launchChromium, until } from './harness.js';

/**
 * A customer sets up a webhook endpoint in Chromium against a real receiver on 127.0.0.1 (the
 * server allows http and private addresses for it): the secret shown once, the test event
 * delivered and signed with it, its message seen delivered with status 200 (the endpoint's page
 * and the list then show its health over 24 h), then resent with the same id. The new pages are checked with axe and screenshotted at 1280 and 390 px.
 */

const EMAIL = 'hedy@example.com';
const PASSWORD = 'correct horse battery';

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

let workspace: Awaited<ReturnType<typeof tempDir>>;
let server: ServeProcess;
let receiver: Server;
let receiverUrl = '';
const received: Received[] = [];
let browser: Browser;
let context: BrowserContext;
let recorder: ReturnType<typeof recordContext>;
let page: Page;
let secret = '';
let endpointPath = '';
const findings: string[] = [];

beforeAll(async () => {
  assertBuilt();
  receiver = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      response.end('<b>thanks</b>');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  workspace = await tempDir();
  server = await startServe([
    '--db',
    join(workspace.dir, 'webhooks.db'),
    '--port',
    '0',
    '--webhooks-allow-http',
    '--webhooks-allow-private',
  ]);
  browser = await launchChromium();
  context = await browser.newContext();
  recorder = recordContext(context);
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
  if (server?.child.exitCode === null) server.child.kill('SIGTERM');
  await server?.exited;
  await new Promise((resolve) => receiver?.close(resolve));
  await workspace?.remove();
});

describe('dashboard webhooks in Chromium', () => {
  it('creates an endpoint whose secret is shown once', async () => {
    await signUpWithProject(page, server, { email: EMAIL, password: PASSWORD });
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL(/\/webhooks$/);
    findings.push(...(await layoutFindings(page, 'webhooks-empty')));

    await page.getByLabel('Endpoint URL').fill(receiverUrl);
    await page.getByLabel('Description').fill('order service');
    await page.getByRole('checkbox', { name: /browser\.connected/ }).check();
    await submit(page, 'Create endpoint');
    secret = ((await page.textContent('#new-secret')) ?? '').trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(await page.textContent('#copy-status')).toBe('Copy the secret with the button, or select it.');
    findings.push(...(await seriousAxeViolations(page)));
    // The script replaced this entry with the endpoint's page: a reload does not show the secret.
    endpointPath = new URL(page.url()).pathname;
    expect(endpointPath).toMatch(/\/webhooks\/whe_[0-9a-z]+$/);
    await page.reload();
    expect(await page.content()).not.toContain(secret);
    await page.goto(`${server.url}${endpointPath.replace(/\/whe_[0-9a-z]+$/, '')}`);
    expect(await page.textContent('main')).toContain(receiverUrl);
  });

  // The endpoint's page and the list, with the endpoint's health, and the message's page, each
  // checked with axe at two widths: longer than one page's default on a busy machine.
  it('sends the test event: signed with the secret, seen delivered with status 200', async () => {
    await page.goto(`${server.url}${endpointPath}`);
    await submit(page, 'Send a test event');
    const [request] = await until(
      async () => received,
      (list) => list.length >= 1,
      'the test event at the receiver',
    );
    const id = request!.headers['webhook-id'] as string;
    expect(id).toMatch(/^msg_/);
    expect(JSON.parse(request!.body)).toMatchObject({
      type: 'webhook.test',
      data: { endpoint_id: expect.any(String) },
    });
    const timestamp = Number(request!.headers['webhook-timestamp']);
    expect(request!.headers['webhook-signature']).toContain(webhookSignature(secret, id, timestamp, request!.body));

    const row = page.locator(`tr[data-message-id="${id}"]`);
    // No reload: the list of messages refreshes itself while the page is shown.
    await until(
      async () => ((await row.count()) === 0 ? null : row.getAttribute('data-status')),
      (status) => status === 'delivered',
      'the message delivered on the endpoint page',
    );
    // Its health, read when the page is: the share delivered over 24 h and the latest request.
    await page.reload();
    expect(await page.locator('dd .health').textContent()).toMatch(
      /^1 of 1 delivered \(100%\); latest request .+: taken$/,
    );
    findings.push(...(await layoutFindings(page, 'webhook-endpoint')));
    // The list says it in short.
    await page.goto(`${server.url}${endpointPath.replace(/\/whe_[0-9a-z]+$/, '')}`);
    expect(await page.locator('td .health').first().textContent()).toBe('100% in 24 h');
    findings.push(...(await layoutFindings(page, 'webhooks')));
    await page.goto(`${server.url}${endpointPath}`);
    await row.getByRole('link').click();
    await page.waitForURL(new RegExp(`/messages/${id}$`));
    expect(await page.textContent('[data-field="status-code"]')).toBe('200');
    const main = (await page.textContent('main')) ?? '';
    expect(main).toContain('webhook.test');
    expect(main).toContain('<b>thanks</b>');
    findings.push(...(await layoutFindings(page, 'webhook-message')));
  }, 180_000);

  it('resends the message with the same id', async () => {
    const id = received[0]!.headers['webhook-id'];
    await submit(page, 'Resend');
    expect(await page.textContent('main')).toContain('sent again');
    const list = await until(
      async () => received,
      (all) => all.length >= 2,
      'the resent message at the receiver',
    );
    expect(list[1]!.headers['webhook-id']).toBe(id);
    expect(list[1]!.body).toBe(list[0]!.body);
    await until(
      async () => {
        await page.reload();
        return page.locator('tr[data-outcome="succeeded"]').count();
      },
      (count) => count >= 2,
      'two successful requests on the message page',
    );
  });

  it('showed the secret in one response only, and the pages hold', async () => {
    const holding = await recorder.holding(secret);
    expect(holding.map((entry) => entry.url)).toEqual([expect.stringMatching(/\/webhooks$/)]);
    expect(recorder.console.filter((line) => line.startsWith('pageerror'))).toEqual([]);
    expect(findings).toEqual([]);
  });
});
