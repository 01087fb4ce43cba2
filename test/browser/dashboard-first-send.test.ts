import { exec } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertBuilt, type ServeProcess, startServe, tempDir } from '@tidings/test-support/cli-process.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cspViolations,
  layoutFindings,
  overflow,
  recordContext,
  seriousAxeViolations,
  signUpWithProject,
  submit,
} from './dashboard-harness.js';
import { launchChromium, until } from './harness.js';

/**
 * A newcomer's first send, inside the dashboard: `tidings serve` as a process, a real Chromium.
 * The key's page connects the tab as a browser of `dashboard:<account id>` with the browser SDK,
 * its button sends through the public API, and the notification shows with its attempt and
 * receipts; the page's curl, run as it stands, reaches the same tab. With JavaScript off the page
 * says the live test needs it, and the same curl answers 409.
 */

const artifacts = fileURLToPath(new URL('../../test-artifacts/dashboard/', import.meta.url));
const EMAIL = 'grace@example.com';
const PASSWORD = 'correct horse battery';

let workspace: Awaited<ReturnType<typeof tempDir>>;
let server: ServeProcess;
let browser: Browser;
let context: BrowserContext;
let recorder: ReturnType<typeof recordContext>;
let page: Page;
let key = '';
/** The second project, left empty by the JavaScript-off test, and its key. */
let quiet = { url: '', key: '' };
/** The first project, which sent first. */
let shop = { id: '' };

/** Runs a command line in a shell, as a person pasting it would, with the key in the environment. */
function runCommand(command: string, apiKey: string): Promise<string> {
  return new Promise((resolve, reject) => {
    exec(command, { env: { ...process.env, TIDINGS_API_KEY: apiKey }, timeout: 15_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** The first send's list item of a notification, as the page shows it. */
function itemOf(target: Page, id: string) {
  return target.locator(`#first-send-list li[data-id="${id}"]`);
}

/** Waits until the page shows the notification with its attempt delivered. */
async function waitDelivered(target: Page, id: string) {
  await until(
    () => itemOf(target, id).locator('[data-attempt-status="delivered"]').count(),
    (count) => count === 1,
    `notification ${id} shown with its attempt delivered`,
  );
}

beforeAll(async () => {
  assertBuilt();
  workspace = await tempDir();
  server = await startServe(['--db', join(workspace.dir, 'first-send.db'), '--port', '0']);
  browser = await launchChromium();
  context = await browser.newContext();
  recorder = recordContext(context);
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
  if (server?.child.exitCode === null) server.child.kill('SIGTERM');
  await server?.exited;
  await workspace?.remove();
});

describe('the first send in the dashboard', () => {
  it('signs up, creates a project and a key, and the test notification arrives in the page, delivered', async () => {
    await signUpWithProject(page, server, { email: EMAIL, password: PASSWORD });
    // The empty project's page offers the first send already.
    expect(await page.getByRole('heading', { name: 'Send a test notification' }).isVisible()).toBe(true);

    await page.getByLabel('Key name').fill('production server');
    await page.getByLabel('Live').check();
    await submit(page, 'Create key');
    key = ((await page.textContent('#new-key')) ?? '').trim();
    expect(key).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);

    const button = page.getByRole('button', { name: 'Send a test notification' });
    await until(
      () => button.isEnabled(),
      (enabled) => enabled,
      'the tab connected and the button enabled',
    );
    expect(await page.getAttribute('#first-send-status', 'data-status')).toBe('open');
    const recipient = (await page.getAttribute('#first-send', 'data-recipient')) ?? '';
    shop = { id: projectIdOf(page) };
    expect(recipient).toMatch(/^dashboard:acct_[0-9a-z]{26}$/);

    const [answer] = await Promise.all([
      page.waitForResponse((response) => response.url().endsWith('/first-send/send')),
      button.click(),
    ]);
    expect(answer.status()).toBe(201);
    const sent = (await answer.json()) as { id: string; recipient: string; mode: string };
    expect(sent).toMatchObject({ recipient, mode: 'live' });
    await waitDelivered(page, sent.id);
    // The SDK handed it to this tab, which reported it displayed.
    expect(await itemOf(page, sent.id).getAttribute('data-received')).toBe('true');
    await until(
      () => itemOf(page, sent.id).locator('[data-displayed="true"]').count(),
      (count) => count === 1,
      'the displayed receipt shown',
    );
    expect(await page.textContent('#first-send-status')).toContain('answered 201');
  });

  it('runs the page’s curl as it stands: 201, and that notification appears too', async () => {
    const command = ((await page.textContent('#first-send-curl')) ?? '').trim();
    expect(command).toContain('$TIDINGS_API_KEY');
    expect(command).not.toContain(key);
    const output = JSON.parse(await runCommand(command, key)) as { object: string; id: string; attempts: unknown[] };
    expect(output.object).toBe('notification');
    expect(output.attempts).toHaveLength(1);
    await waitDelivered(page, output.id);
    expect(await itemOf(page, output.id).getAttribute('data-received')).toBe('true');
    expect(cspViolations(recorder.console)).toEqual([]);
    expect(recorder.console.filter((line) => line.startsWith('pageerror'))).toEqual([]);
  });

  it('fits 1280 and 390 px with no sideways scroll, is axe-clean, and is screenshotted at both', async () => {
    expect(await layoutFindings(page, 'first-send')).toEqual([]);
  });

  it('sent the key in a request body only: no answer but its own page holds it', async () => {
    const keysUrl = `${server.url}/dashboard/projects/${projectIdOf(page)}/keys`;
    // Closed first: the receipts' keepalive requests give up their answers only with the page.
    await page.close();
    const holding = await recorder.holding(key);
    expect(holding.map((entry) => entry.url)).toEqual([keysUrl]);
  });

  it('with JavaScript off, says the live test needs it and shows the curl, which answers 409', async () => {
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    await noScript.addCookies(await context.cookies());
    const plain = await noScript.newPage();
    // A second project, empty, and its key: forms work without a script.
    await plain.goto(`${server.url}/dashboard`);
    await plain.getByLabel('Project name').fill('Quiet');
    await submit(plain, 'Create project');
    expect(await plain.textContent('#first-send')).toContain('The live test needs JavaScript');
    await plain.getByLabel('Key name').fill('cron');
    await submit(plain, 'Create key');
    const quietKey = ((await plain.textContent('#new-key')) ?? '').trim();
    quiet = { url: `${server.url}/dashboard/projects/${projectIdOf(plain)}`, key: quietKey };
    // (Text locators skip <noscript>; the notice is found by its place.)
    const notice = plain.locator('#first-send noscript .notice');
    expect(await notice.isVisible()).toBe(true);
    expect(await notice.textContent()).toContain('The live test needs JavaScript');
    expect(await notice.textContent()).toContain('409 NO_CONNECTED_BROWSER');
    expect(await plain.locator('[data-first-send-controls]').isVisible()).toBe(false);
    const command = ((await plain.textContent('#first-send-curl')) ?? '').trim();
    const output = JSON.parse(await runCommand(command, quietKey)) as { status: number; code: string };
    expect(output).toMatchObject({ status: 409, code: 'NO_CONNECTED_BROWSER' });
    // (axe runs as a script, so it cannot check this page; the notice is the pages' usual Notice.)
    for (const width of [1280, 390]) {
      await plain.setViewportSize({ width, height: 900 });
      expect(await overflow(plain)).toBe(0);
      await plain.screenshot({ path: join(artifacts, `first-send-no-script-${width}.png`), fullPage: true });
    }
    await noScript.close();
  });

  it('on an empty project’s page, sends with a pasted key, which no answer holds', async () => {
    const tab = await context.newPage();
    await tab.goto(quiet.url);
    const button = tab.getByRole('button', { name: 'Send a test notification' });
    await until(
      () => button.isEnabled(),
      (enabled) => enabled,
      'the tab connected',
    );
    // A key that is not one of this project's is refused in the contract's words.
    await tab.getByLabel('API key of this project').fill(key);
    await button.click();
    await until(
      () => tab.getAttribute('#first-send-status', 'data-status'),
      (state) => state === 'refused',
      'the refusal shown',
    );
    // In plain words, beside the field too.
    expect(await tab.textContent('#first-send-status')).toContain('The key must be an active key of this project');
    expect(await tab.getAttribute('#first-send-key', 'aria-invalid')).toBe('true');
    await tab.getByLabel('API key of this project').fill(quiet.key);
    const [answer] = await Promise.all([
      tab.waitForResponse((response) => response.url().endsWith('/first-send/send') && response.status() === 201),
      button.click(),
    ]);
    const sent = (await answer.json()) as { id: string };
    await waitDelivered(tab, sent.id);
    expect(await seriousAxeViolations(tab)).toEqual([]);
    // Closed first: the receipts' keepalive requests give up their answers only with the page.
    await tab.close();
    expect(await recorder.holding(quiet.key)).toEqual([]);
  });
});

describe('the test panel after the first send', () => {
  /** The page of the project that sent first, with its test panel unfolded and its tab connected. */
  async function openPanel(target: Page, projectUrl: string): Promise<string> {
    await target.goto(projectUrl);
    // The project has sent: the panel is kept, folded, and the tab connects once it is unfolded.
    expect(await target.getByRole('heading', { name: 'Send a test notification' }).isVisible()).toBe(true);
    expect(await target.locator('details[data-first-send-details]').getAttribute('open')).toBeNull();
    expect(await target.getAttribute('#first-send-status', 'data-status')).toBe('connecting');
    await target.locator('details[data-first-send-details] > summary').click();
    await until(
      () => target.getAttribute('#first-send-status', 'data-status'),
      (state) => state === 'open',
      'the unfolded panel connected its tab',
    );
    return (await target.getAttribute('#first-send-status', 'data-browser-id')) ?? '';
  }

  // Two tabs connected in turn, then five pages checked at two widths: more than the default minute
  // on a loaded machine.
  it('disconnects a closed tab, so a send from a new tab completes, its attempt labelled "this tab"', async () => {
    const projectUrl = `${server.url}/dashboard/projects/${shop.id}`;
    const first = await context.newPage();
    const closedBrowser = await openPanel(first, projectUrl);
    expect(closedBrowser).toMatch(/^brw_/);
    // Closing the tab disconnects its browser (a beacon on pagehide): its page says so.
    await first.close({ runBeforeUnload: true });
    const browserPage = `${server.url}/dashboard/projects/${shop.id}/browsers/${closedBrowser}`;
    await until(
      async () => (await context.request.get(browserPage)).text(),
      (html) => html.includes('disconnected') && html.includes('by request'),
      'the closed tab’s browser disconnected',
    );

    const tab = await context.newPage();
    const ownBrowser = await openPanel(tab, projectUrl);
    expect(ownBrowser).not.toBe(closedBrowser);
    // An empty title is refused in plain words, beside the field; nothing is sent.
    await tab.getByLabel('API key of this project').fill(key);
    await tab.getByLabel('Title').fill('');
    const button = tab.getByRole('button', { name: 'Send a test notification' });
    await button.click();
    await until(
      () => tab.getAttribute('#first-send-status', 'data-status'),
      (state) => state === 'refused',
      'the empty title refused',
    );
    expect(await tab.textContent('#first-send-status')).toContain('The title must be 1 to 200 characters');
    expect(await tab.getAttribute('#first-send-title-field', 'aria-invalid')).toBe('true');

    await tab.getByLabel('Title').fill('Edited title');
    await tab.getByLabel('Body').fill('Sent again from a new tab.');
    const [answer] = await Promise.all([
      tab.waitForResponse((response) => response.url().endsWith('/first-send/send') && response.status() === 201),
      button.click(),
    ]);
    const sent = (await answer.json()) as { id: string; title: string; attempts: { browser_id: string }[] };
    expect(sent.title).toBe('Edited title');
    // Only this tab's browser is connected: one attempt, not one held for the closed tab.
    expect(sent.attempts.map((attempt) => attempt.browser_id)).toEqual([ownBrowser]);
    await waitDelivered(tab, sent.id);
    await until(
      () => itemOf(tab, sent.id).getAttribute('data-status'),
      (status) => status === 'completed',
      'the send completed, not pending',
    );
    expect(await itemOf(tab, sent.id).locator('[data-attempt]').getAttribute('data-browser')).toBe('this tab');
    expect(await tab.getAttribute('#first-send-title-field', 'aria-invalid')).toBeNull();
    expect(await layoutFindings(tab, 'first-send-again')).toEqual([]);

    // The notification's page, opened from the panel, names the attempt "this tab" too.
    await itemOf(tab, sent.id).getByRole('link', { name: 'Edited title' }).click();
    await tab.waitForURL(/\/notifications\/ntf_/);
    expect(await tab.locator('dl.facts dd[data-field="status"] [data-outcome]').textContent()).toBe('delivered');
    const row = tab.locator(`tr[data-attempt-id]`);
    expect(await row.count()).toBe(1);
    expect(await row.locator('td[data-field="browser"]').textContent()).toContain('this tab');
    expect(await layoutFindings(tab, 'notification-this-tab')).toEqual([]);

    // The browser's page and its recipient's page, a click away.
    await row.locator('td[data-field="browser"] a').click();
    await tab.waitForURL(/\/browsers\/brw_/);
    expect(await tab.textContent('[data-field="connection"]')).toContain('event stream');
    expect(await tab.textContent('[data-field="user-agent"]')).toContain('Chrome');
    expect(await layoutFindings(tab, 'browser-page')).toEqual([]);
    await tab.getByRole('link', { name: '← Recipient' }).click();
    await tab.waitForURL(/\/recipients\//);
    expect(await tab.locator(`tr[data-browser-id="${closedBrowser}"]`).textContent()).toContain('disconnected');
    expect(await layoutFindings(tab, 'recipient-page')).toEqual([]);
    // The Recipients tab lists it, marked as the dashboard's own, linked back to its page.
    const recipientPath = new URL(tab.url()).pathname;
    await tab.getByRole('link', { name: '← Recipients' }).click();
    await tab.waitForURL(/\/recipients$/);
    const listed = tab.locator('tr[data-recipient^="dashboard:acct_"]');
    expect(await listed.count()).toBe(1);
    expect(await listed.textContent()).toContain('dashboard tabs');
    expect(await listed.getByRole('link').getAttribute('href')).toBe(recipientPath);
    expect(await layoutFindings(tab, 'recipients')).toEqual([]);
    expect(cspViolations(recorder.console)).toEqual([]);
    await tab.close();
  }, 120_000);
});

function projectIdOf(target: Page): string {
  return /\/dashboard\/projects\/(proj_[0-9a-z]{26})/.exec(target.url())?.[1] ?? '';
}
