import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertBuilt, type ServeProcess, startServe, tempDir, tidingsJson } from '@tidings/test-support/cli-process.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations, submit, verifiedAccount } from './dashboard-harness.js';
import { launchChromium } from './harness.js';
import { brokenWords, hiddenCells, pastTheScreen, scrollingTables } from './table-layout.js';

/**
 * The dashboard with data as long as people make it (a 100-character project name with no
 * space, long key names, a 100-character recipient id), at a desktop width and a phone's: no
 * page scrolls sideways, tables scroll inside their own box, and each page is screenshotted at
 * both widths (`test-artifacts/dashboard/layout-*.png`, `tables-*.png`). Every table holds names, titles, recipients and URLs
 * of 100 characters: no word of a cell is broken over two lines, and at the phone's width each
 * row is a card that shows every column's value under its header.
 */

const artifacts = fileURLToPath(new URL('../../test-artifacts/dashboard/', import.meta.url));
const LONG_NAME = `Project${'x'.repeat(93)}`;
const WIDTHS = [1280, 390] as const;
/** 100 characters each: the longest names the dashboard takes, and a title of ordinary words. */
const LONG_ACTOR = `deploy-bot-${'a'.repeat(89)}`;
const LONG_URL = `https://hooks.example.invalid/${'p'.repeat(70)}`;
const LONG_DESCRIPTION = 'Forwards every event to the billing team and its audit pipeline, with retries '.padEnd(
  100,
  'z',
);
const WORDY_TITLE = 'Live view test of a notification whose title is made of ordinary words and runs long '.padEnd(
  100,
  'w',
);
/** A recipient id of 100 characters with no place to break it. */
const LONG_RECIPIENT = `user_${'r'.repeat(95)}`;

let workspace: Awaited<ReturnType<typeof tempDir>>;
let db: string;
let server: ServeProcess;
let browser: Browser;
let customer: BrowserContext;
let operator: BrowserContext;
let projectId = '';
let notificationId = '';
let endpointId = '';

async function signIn(context: BrowserContext, email: string, next = '/dashboard'): Promise<Page> {
  const { code } = await tidingsJson<{ code: string }>(['account', 'sign-in-code', '--email', email, '--db', db]);
  const page = await context.newPage();
  await page.goto(`${server.url}${next}`);
  await page.getByRole('link', { name: 'Sign in with a one-time code' }).click();
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Code').fill(code);
  await submit(page, 'Sign in');
  return page;
}

/** How far the page reaches past the viewport's right edge, in CSS pixels (0 when it fits). */
function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/** How many rows the project's tabs take (0 on a page without them): one, scrolled sideways on a phone. */
function tabRows(page: Page): Promise<number> {
  return page.evaluate(
    () => new Set([...document.querySelectorAll<HTMLElement>('.tabs a')].map((tab) => tab.offsetTop)).size,
  );
}

beforeAll(async () => {
  assertBuilt();
  workspace = await tempDir();
  db = join(workspace.dir, 'layout.db');
  const ownerId = await verifiedAccount(db);
  await tidingsJson(['account', 'create', '--email', 'op@example.com', '--verified', '--operator', '--db', db]);
  const project = await tidingsJson<{ id: string }>([
    'project',
    'create',
    '--account',
    ownerId,
    '--name',
    LONG_NAME,
    '--actor',
    LONG_ACTOR,
    '--db',
    db,
  ]);
  projectId = project.id;
  let liveKey = '';
  for (let i = 0; i < 10; i++) {
    const created = await tidingsJson<{ key: string }>([
      'key',
      'create',
      '--project',
      projectId,
      '--mode',
      i % 2 ? 'test' : 'live',
      '--name',
      `server-${i}-${'n'.repeat(91)}`,
      '--actor',
      LONG_ACTOR,
      '--db',
      db,
    ]);
    if (i === 0) liveKey = created.key;
  }
  const endpoint = await tidingsJson<{ id: string }>([
    'webhook',
    'create',
    '--project',
    projectId,
    '--url',
    LONG_URL,
    '--events',
    'browser.connected,notification.attempt.updated',
    '--description',
    LONG_DESCRIPTION,
    '--actor',
    LONG_ACTOR,
    '--db',
    db,
  ]);
  endpointId = endpoint.id;
  server = await startServe(['--db', db, '--port', '0']);
  // One send to a long recipient, with a browser connected for it.
  const headers = { Authorization: `Bearer ${liveKey}`, 'Content-Type': 'application/json' };
  const recipient = LONG_RECIPIENT;
  const token = (await (
    await fetch(`${server.url}/v1/connect-tokens`, { method: 'POST', headers, body: JSON.stringify({ recipient }) })
  ).json()) as { connect_url: string };
  const stream = await fetch(
    token.connect_url.startsWith('http') ? token.connect_url : `${server.url}${token.connect_url}`,
    {
      headers: { Accept: 'text/event-stream' },
    },
  );
  const reader = stream.body!.getReader();
  await reader.read(); // the ready event: the browser is connected
  const sent = await fetch(`${server.url}/v1/notifications`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ recipient, title: `A title with a long word ${'t'.repeat(120)}` }),
  });
  expect(sent.status).toBe(201);
  notificationId = ((await sent.json()) as { id: string }).id;
  const wordy = await fetch(`${server.url}/v1/notifications`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ recipient, title: WORDY_TITLE }),
  });
  expect(wordy.status).toBe(201);
  await reader.cancel();

  browser = await launchChromium();
  customer = await browser.newContext();
  operator = await browser.newContext();
});

afterAll(async () => {
  await browser?.close();
  server?.child.kill();
  await server?.exited;
  await workspace?.remove();
});

describe('the dashboard’s layout with long data', () => {
  it('keeps a deep link through sign-in, and sends no one elsewhere with it', async () => {
    const page = await signIn(customer, 'ada@example.com', `/dashboard/projects/${projectId}/usage`);
    expect(new URL(page.url()).pathname).toBe(`/dashboard/projects/${projectId}/usage`);
    await page.close();
    // A `next` that leaves the dashboard leads home instead.
    const other = await operator.newPage();
    await other.goto(`${server.url}/dashboard/login?next=${encodeURIComponent('//evil.test/x')}`);
    expect(await other.locator('input[name="next"]').count()).toBe(0);
    await other.close();
  });

  it('scrolls no page sideways at 1280 and 390 px, and screenshots each', async () => {
    await mkdir(artifacts, { recursive: true });
    const customerPages = [
      ['projects', '/dashboard'],
      ['keys', `/dashboard/projects/${projectId}`],
      ['usage', `/dashboard/projects/${projectId}/usage`],
      ['log', `/dashboard/projects/${projectId}/log`],
      ['requests', `/dashboard/projects/${projectId}/requests`],
      ['notification', `/dashboard/projects/${projectId}/notifications/${notificationId}`],
      ['audit', `/dashboard/projects/${projectId}/audit`],
      ['settings', `/dashboard/projects/${projectId}/settings`],
    ] as const;
    const page = await customer.newPage();
    const op = await signIn(operator, 'op@example.com');
    const findings: string[] = [];
    for (const width of WIDTHS) {
      for (const [target, pages] of [
        [page, customerPages],
        [op, [['operator', '/dashboard/operator']] as const],
      ] as const) {
        await target.setViewportSize({ width, height: 900 });
        for (const [name, path] of pages) {
          await target.goto(`${server.url}${path}`);
          const past = await overflow(target);
          if (past > 0) findings.push(`${name} at ${width} px reaches ${past} px past the screen`);
          await target.screenshot({ path: join(artifacts, `layout-${name}-${width}.png`), fullPage: true });
          if (width === 390) findings.push(...(await seriousAxeViolations(target)));
        }
      }
    }
    expect(findings).toEqual([]);
    // The operator's Suspend button is on screen at the phone's width, with the long name beside it.
    await op.goto(`${server.url}/dashboard/operator`);
    const suspend = await op
      .getByRole('link', { name: /Suspend/ })
      .first()
      .boundingBox();
    expect(suspend).not.toBeNull();
  });

  // Eleven pages at two widths, each looked at cell by cell: more than the default minute on a loaded machine.
  it('breaks no word of a table cell, and shows every column of a row as a card at 390 px', async () => {
    const project = `/dashboard/projects/${projectId}`;
    const tables = [
      ['keys', project],
      ['log', `${project}/log`],
      ['requests', `${project}/requests`],
      ['notification', `${project}/notifications/${notificationId}`],
      ['audit', `${project}/audit`],
      ['usage', `${project}/usage`],
      ['webhooks', `${project}/webhooks`],
      ['webhook-endpoint', `${project}/webhooks/${endpointId}`],
      ['recipients', `${project}/recipients`],
      ['recipient', `${project}/recipients/${LONG_RECIPIENT}`],
    ] as const;
    await mkdir(artifacts, { recursive: true });
    const page = await customer.newPage();
    const op = await operator.newPage();
    const findings: string[] = [];
    const cells: Record<string, number> = {};
    for (const width of WIDTHS) {
      for (const [target, pages] of [
        [page, tables],
        [op, [['operator', '/dashboard/operator']] as const],
      ] as const) {
        await target.setViewportSize({ width, height: 900 });
        for (const [name, path] of pages) {
          await target.goto(`${server.url}${path}`);
          findings.push(...(await brokenWords(target, `${name} at ${width} px`)));
          const past = await overflow(target);
          if (past > 0) {
            const what = (await pastTheScreen(target)).join(', ');
            findings.push(`${name} at ${width} px reaches ${past} px past the screen (${what})`);
          }
          // A desktop has room for every column but the eleven of a notification's attempts.
          if (width === 1280 && name !== 'notification') findings.push(...(await scrollingTables(target, name)));
          if (width === 390) {
            const rows = await tabRows(target);
            if (rows > 1) findings.push(`${name} at 390 px: the tabs wrap onto ${rows} rows`);
            const seen = await hiddenCells(target, name);
            findings.push(...seen.findings, ...(await seriousAxeViolations(target)));
            cells[name] = seen.cells;
          }
          await target.screenshot({ path: join(artifacts, `tables-${name}-${width}.png`), fullPage: true });
        }
      }
    }
    expect(findings).toEqual([]);
    // Every page had rows to look at, and the title a person reads is there in full for hover.
    for (const [name] of [...tables, ['operator']]) expect(cells[name], name).toBeGreaterThan(0);
    await page.goto(`${server.url}${project}/log`);
    expect(await page.getByRole('link', { name: WORDY_TITLE }).getAttribute('title')).toBe(WORDY_TITLE);
    // A webhook message's status is on the phone's screen.
    await page.setViewportSize({ width: 390, height: 900 });
    await page.goto(`${server.url}${project}/webhooks/${endpointId}`);
    const status = page.locator('tr[data-message-id] td').nth(2);
    expect(await status.isVisible()).toBe(true);
    const box = (await status.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
  }, 180_000);

  it('counts a name’s characters as they are typed, and refuses one over the limit whole', async () => {
    const page = await customer.newPage();
    await page.goto(`${server.url}/dashboard/projects/${projectId}/settings`);
    const counter = page.locator('#field-name-count');
    expect(await counter.textContent()).toBe('100 / 100');
    await page.getByLabel('Project name').press('End');
    await page.getByLabel('Project name').pressSequentially('yz');
    expect(await counter.textContent()).toBe('102 / 100: 2 too many');
    expect(await counter.getAttribute('class')).toContain('over');
    const response = await submit(page, 'Rename');
    expect(response?.status()).toBe(400);
    expect(await page.textContent('main')).toContain('This is 102 characters long: shorten it to 100 or fewer.');
    expect(await page.getByLabel('Project name').inputValue()).toBe(`${LONG_NAME}yz`);
    await page.close();
  });

  it('replaces the new-key form with a notice at the limit, and a skip link leads to the content', async () => {
    const page = await customer.newPage();
    await page.goto(`${server.url}/dashboard/projects/${projectId}`);
    expect(await page.locator('input[name="name"]').count()).toBe(0);
    expect(await page.textContent('main')).toContain('This project has 10 of its 10 active keys');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
  });
});
