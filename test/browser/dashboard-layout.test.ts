import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertBuilt, type ServeProcess, startServe, tempDir, tidingsJson } from '@tidings/test-support/cli-process.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAxeViolations, submit } from './dashboard-harness.js';
import { launchChromium } from './harness.js';

/**
 * The dashboard with data as long as people make it (a 100-character project name with no
 * space, long key names, a long recipient), at a desktop width and a phone's: no page scrolls
 * sideways, tables scroll inside their own box, and each page is screenshotted at both widths
 * (`test-artifacts/dashboard/`).
 */

const artifacts = fileURLToPath(new URL('../../test-artifacts/dashboard/', import.meta.url));
const LONG_NAME = `Project${'x'.repeat(93)}`;
const WIDTHS = [1280, 390] as const;

let workspace: Awaited<ReturnType<typeof tempDir>>;
let db: string;
let server: ServeProcess;
let browser: Browser;
let customer: BrowserContext;
let operator: BrowserContext;
let projectId = '';
let notificationId = '';

async function signIn(context: BrowserContext, email: string, next = '/dashboard'): Promise<Page> {
  const { code } = await tidingsJson<{ code: string }>(['account', 'sign-in-code', '--email', email, '--db', db]);
  const page = await context.newPage();
  await page.goto(`${server.url}${next}`);
  await page.getByRole('link', { name: 'Sign in with a one-time code' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Code').fill(code);
  await submit(page, 'Sign in');
  return page;
}

/** How far the page reaches past the viewport's right edge, in CSS pixels (0 when it fits). */
function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

beforeAll(async () => {
  assertBuilt();
  workspace = await tempDir();
  db = join(workspace.dir, 'layout.db');
  const owner = await tidingsJson<{ id: string }>([
    'account',
    'create',
    '--email',
    'ada@example.com',
    '--verified',
    '--db',
    db,
  ]);
  await tidingsJson(['account', 'create', '--email', 'op@example.com', '--verified', '--operator', '--db', db]);
  const project = await tidingsJson<{ id: string }>([
    'project',
    'create',
    '--account',
    owner.id,
    '--name',
    LONG_NAME,
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
      `server-${i}-${'n'.repeat(80)}`,
      '--db',
      db,
    ]);
    if (i === 0) liveKey = created.key;
  }
  server = await startServe(['--db', db, '--port', '0']);
  // One send to a long recipient, with a browser connected for it.
  const headers = { Authorization: `Bearer ${liveKey}`, 'Content-Type': 'application/json' };
  const recipient = `user_${'r'.repeat(90)}`;
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
          await target.screenshot({ path: join(artifacts, `${name}-${width}.png`), fullPage: true });
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
