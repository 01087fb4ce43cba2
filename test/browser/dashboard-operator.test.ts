import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTidings } from '@tidings/core';
import { createSqliteDashboardStore } from '@tidings/dashboard/sqlite';
import { createSqliteStore } from '@tidings/store-sqlite';
import { assertBuilt, type ServeProcess, startServe, tempDir, tidingsJson } from '@tidings/test-support/cli-process.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutFindings, submit } from './dashboard-harness.js';
import { launchChromium, until } from './harness.js';

/**
 * The operators' side in a real browser: an operator searches accounts and projects, pages
 * through them, suspends a project with a reason on its confirmation page, and the customer
 * sees that reason on the project's pages. Each step is screenshotted at 1280 and 390 px
 * (`test-artifacts/dashboard/operator-*.png`) and checked with axe; no page scrolls sideways.
 */

const artifacts = fileURLToPath(new URL('../../test-artifacts/dashboard/', import.meta.url));
const REASON = 'Spam reports: 100% of <em>sends</em> & more';

let workspace: Awaited<ReturnType<typeof tempDir>>;
let db: string;
let server: ServeProcess;
let browser: Browser;
let customer: BrowserContext;
let operator: BrowserContext;
let projectId = '';

async function signIn(context: BrowserContext, email: string): Promise<Page> {
  const { code } = await tidingsJson<{ code: string }>(['account', 'sign-in-code', '--email', email, '--db', db]);
  const page = await context.newPage();
  await page.goto(`${server.url}/dashboard/login/code`);
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Code').fill(code);
  await submit(page, 'Sign in');
  return page;
}

/** At each width: no sideways scroll, no serious axe finding, and a screenshot named `operator-NAME-WIDTH.png`. */
function checkAtWidths(page: Page, name: string): Promise<string[]> {
  return layoutFindings(page, `operator-${name}`);
}

/** The ids of the project rows on the page, in order. */
function projectRows(page: Page): Promise<string[]> {
  return page.locator('tr[data-project-id]').evaluateAll((rows) => rows.map((row) => row.dataset.projectId ?? ''));
}

beforeAll(async () => {
  assertBuilt();
  await mkdir(artifacts, { recursive: true });
  workspace = await tempDir();
  db = join(workspace.dir, 'operator.db');
  // 55 projects of 6 accounts, straight into the file before the server opens it (the CLI would
  // take a process per project): 51 "Shop" ones to page through, and a few to search for.
  const store = createSqliteStore({ path: db });
  const tidings = createTidings({ store, sweepIntervalMs: 0 });
  const owners = [];
  for (let i = 0; i < 6; i++) {
    owners.push(await tidings.admin.createAccount({ email: `owner${i}@example.com`, verified: true }));
  }
  for (let i = 0; i < 51; i++) {
    await tidings.admin.createProject({ accountId: owners[Math.floor(i / 10)]!.id, name: `Shop ${i + 1}` });
  }
  await tidings.admin.createProject({ accountId: owners[5]!.id, name: '100% pure' });
  await tidings.admin.createProject({ accountId: owners[5]!.id, name: '100 percent' });
  const ada = await tidings.admin.createAccount({ email: 'ada@example.com', verified: true });
  projectId = (await tidings.admin.createProject({ accountId: ada.id, name: 'Ada’s app' })).id;
  const op = await tidings.admin.createAccount({ email: 'op@example.com', verified: true });
  await createSqliteDashboardStore(store).setAccountOperator({ id: op.id, operator: true });
  await tidings.close();
  await store.close();

  server = await startServe(['--db', db, '--port', '0']);
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

describe('the operators’ page in a browser', () => {
  it('searches, pages, suspends with a reason the customer then sees', async () => {
    const findings: string[] = [];
    const op = await signIn(operator, 'op@example.com');
    await op.goto(`${server.url}/dashboard/operator`);

    // Search: the text stays in the box and in the pages' links.
    await op.getByLabel('Search accounts and projects').fill('shop');
    await submit(op, 'Search');
    expect(new URL(op.url()).searchParams.get('q')).toBe('shop');
    const first = await projectRows(op);
    expect(first).toHaveLength(50);
    findings.push(...(await checkAtWidths(op, 'search')));
    await Promise.all([op.waitForNavigation(), op.getByRole('link', { name: 'Next projects' }).click()]);
    expect(new URL(op.url()).searchParams.get('q')).toBe('shop');
    expect(new URL(op.url()).searchParams.get('projects_page')).toBe('2');
    const second = await projectRows(op);
    expect(second).toHaveLength(1);
    expect(first).not.toContain(second[0]);
    expect(await op.getByLabel('Search accounts and projects').inputValue()).toBe('shop');
    await Promise.all([op.waitForNavigation(), op.getByRole('link', { name: 'Previous projects' }).click()]);
    expect(await projectRows(op)).toEqual(first);

    // % is no wildcard.
    await op.getByLabel('Search accounts and projects').fill('100%');
    await submit(op, 'Search');
    expect(await op.locator('tr[data-project-id] td').first().textContent()).toContain('100% pure');
    expect(await projectRows(op)).toHaveLength(1);

    // Suspend: a confirmation page that refuses an empty reason.
    await op.getByLabel('Search accounts and projects').fill('ada@');
    await submit(op, 'Search');
    expect(await projectRows(op)).toEqual([projectId]);
    await Promise.all([op.waitForNavigation(), op.getByRole('link', { name: /Suspend Ada’s app/ }).click()]);
    expect(new URL(op.url()).pathname).toBe(`/dashboard/operator/projects/${projectId}/suspend`);
    findings.push(...(await checkAtWidths(op, 'suspend-confirm')));
    const refused = await submit(op, 'Suspend the project');
    expect(refused?.status()).toBe(400);
    expect(await op.getByRole('alert').textContent()).toContain('Check the fields marked below, then submit again.');
    expect(await op.getByLabel('Reason').getAttribute('aria-invalid')).toBe('true');
    findings.push(...(await checkAtWidths(op, 'suspend-refused')));
    await op.getByLabel('Reason').fill(REASON);
    const done = await submit(op, 'Suspend the project');
    expect(done?.status()).toBe(200);
    expect(new URL(op.url()).searchParams.get('q')).toBe('ada@');
    // The page's other status is the notice that secrets are stored unsealed (no key in this test).
    expect(await op.locator('[role="status"].success').textContent()).toContain('The project is suspended');
    const row = op.locator(`tr[data-project-id="${projectId}"]`);
    expect(await row.textContent()).toContain(REASON);
    expect(await row.getByRole('link', { name: /Resume/ }).count()).toBe(1);
    findings.push(...(await checkAtWidths(op, 'suspended')));

    // Its keys are refused from now on; the customer sees why, escaped.
    await until(
      async () =>
        (await tidingsJson<{ suspended: boolean }[]>(['project', 'list', '--account', await adaId(), '--db', db]))[0],
      (project) => project?.suspended === true,
      'the project suspended in the database',
    );
    const page = await signIn(customer, 'ada@example.com');
    await page.goto(`${server.url}/dashboard/projects/${projectId}`);
    const notice = await page.locator('.suspension').textContent();
    expect(notice).toMatch(
      /^This project was suspended on \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC \((now|\d+ (s|min) ago)\): /,
    );
    expect(notice).toContain(REASON);
    expect(await page.locator('.suspension em').count()).toBe(0);
    findings.push(...(await checkAtWidths(page, 'customer-notice')));
    await page.goto(`${server.url}/dashboard/projects/${projectId}/audit`);
    expect(await page.locator('tr[data-action="project.suspended"]').textContent()).toContain(REASON);

    expect(findings).toEqual([]);
  });
});

async function adaId(): Promise<string> {
  const accounts = await tidingsJson<{ id: string; email: string }[]>(['account', 'list', '--db', db]);
  return accounts.find((account) => account.email === 'ada@example.com')!.id;
}
