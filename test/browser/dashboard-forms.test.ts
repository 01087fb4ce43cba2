import { join } from 'node:path';
import { assertBuilt, type ServeProcess, startServe, tempDir } from '@tidings/test-support/cli-process.js';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countOf, layoutFindings, mailedCode, signUpWithProject, submit } from './dashboard-harness.js';
import { launchChromium } from './harness.js';

/**
 * Forms as a browser meets them: Back after deleting a project comes to a page that says it was
 * deleted, by GET, never a form sent again; the monthly usage chart's bars are reached with the
 * keyboard and say their value; a one-time sign-in code is mailed to the account's address and
 * signs it in; the pages hold at 1280 and 390 px and are axe-clean.
 */

const EMAIL = 'ines@example.com';
const PASSWORD = 'correct horse battery';

let workspace: Awaited<ReturnType<typeof tempDir>>;
let server: ServeProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const posts: string[] = [];
const findings: string[] = [];

beforeAll(async () => {
  assertBuilt();
  workspace = await tempDir();
  server = await startServe(['--db', join(workspace.dir, 'forms.db'), '--port', '0']);
  browser = await launchChromium();
  context = await browser.newContext();
  page = await context.newPage();
  // Every form the browser sends: a Back or a reload that sent one again would show here.
  context.on('request', (request: Request) => {
    if (request.method() === 'POST') posts.push(new URL(request.url()).pathname);
  });
});

afterAll(async () => {
  await browser?.close();
  if (server?.child.exitCode === null) server.child.kill('SIGTERM');
  await server?.exited;
  await workspace?.remove();
});

describe('dashboard forms in Chromium', () => {
  it('shows the usage by month with each bar reached by the keyboard, saying its value', async () => {
    await signUpWithProject(page, server, { email: EMAIL, password: PASSWORD });
    const projectPath = new URL(page.url()).pathname;
    await page.goto(`${server.url}${projectPath}/usage`);
    await page.getByRole('link', { name: 'By month' }).click();
    await page.waitForURL(/view=month$/);
    expect(await page.textContent('h2')).toContain('Usage by month, the last 12 months');
    // Tab from the view switch onto the chart: the first bar takes the focus and says its month and value.
    await page.getByRole('link', { name: 'By month' }).focus();
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement;
      return {
        label: element?.getAttribute('aria-label') ?? '',
        title: element?.querySelector('title')?.textContent ?? '',
        month: element?.getAttribute('data-month') ?? '',
      };
    });
    expect(focused.label).toMatch(/^[A-Z][a-z]+ \d{4}: 0 live notifications\. Show its days\.$/);
    expect(focused.title).toMatch(/^[A-Z][a-z]+ \d{4}: 0 live notifications$/);
    expect(focused.month).toMatch(/^\d{4}-\d{2}$/);
    // The keyboard follows the bars in order, and Enter opens the month's days.
    await page.keyboard.press('Tab');
    const next = await page.evaluate(() => document.activeElement?.getAttribute('data-month') ?? '');
    expect(next > focused.month).toBe(true);
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    expect(new URL(page.url()).searchParams.get('from')).toBe(`${next}-01`);
    await page.goto(`${server.url}${projectPath}/usage?view=month`);
    findings.push(...(await layoutFindings(page, 'usage-month')));
  });

  it('goes Back after deleting a project to a page that says it was deleted, by GET, sending nothing again', async () => {
    const projectPath = new URL(page.url()).pathname.replace(/\/usage$/, '');
    await page.goto(`${server.url}${projectPath}/delete`);
    await page.getByLabel("Type the project's name to confirm").fill('Shop');
    await submit(page, 'Delete the project');
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    expect(await page.textContent('main')).toContain('The project is deleted');
    const sent = posts.filter((path) => path.endsWith('/delete')).length;
    expect(sent).toBe(1);

    // A reload of the answer is a GET of the projects page.
    const reloaded = await page.reload();
    expect(reloaded?.request().method()).toBe('GET');
    expect(reloaded?.status()).toBe(200);

    const back = await page.goBack();
    expect(back?.request().method()).toBe('GET');
    expect(back?.status()).toBe(410);
    expect(new URL(page.url()).pathname).toBe(`${projectPath}/delete`);
    expect(await page.textContent('h1')).toBe('This project was deleted');
    expect(await page.textContent('main')).toMatch(/The project Shop was deleted on .+ UTC .* by ines@example\.com\./);
    findings.push(...(await layoutFindings(page, 'project-deleted')));

    const further = await page.goBack();
    expect(further?.status()).toBe(410);
    expect(posts.filter((path) => path.endsWith('/delete'))).toHaveLength(sent);
    expect(findings).toEqual([]);
  });

  it('signs in with a one-time code mailed to the account’s own address', async () => {
    await submit(page, 'Sign out');
    await page.getByRole('link', { name: 'Sign in with a one-time code' }).click();
    await page.waitForURL(/\/login\/code$/);
    const mailsBefore = countOf(server.stderr(), `[mail] to=${EMAIL} `);
    await page.getByLabel('Your email address').fill(EMAIL);
    await submit(page, 'Email me a sign-in code');
    expect(await page.getByRole('status').textContent()).toContain(`a sign-in code is on its way there`);
    expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe(EMAIL);
    const pageFindings = await layoutFindings(page, 'sign-in-code-sent');
    await page.getByLabel('Code').fill(await mailedCode(server, EMAIL, mailsBefore));
    await submit(page, 'Sign in');
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    expect(await page.textContent('header')).toContain(EMAIL);
    expect(pageFindings).toEqual([]);
  });
});
