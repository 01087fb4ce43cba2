import { join } from 'node:path';
import { assertBuilt, type ServeProcess, startServe, tempDir } from '@tidings/test-support/cli-process.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutFindings, signUpWithProject, submit } from './dashboard-harness.js';
import { launchChromium } from './harness.js';

/**
 * A form sent after the session ended (here: signed out from another device) changes nothing,
 * leads to a sign-in page that says why, and after sign-in back to its page, where, with
 * JavaScript, what was typed is filled in again; without JavaScript, the page comes back as it was.
 * With JavaScript, both pages are checked with axe and screenshotted at 1280 and 390 px.
 */
const EMAIL = 'lin@example.com';
const PASSWORD = 'correct horse battery';

let workspace: Awaited<ReturnType<typeof tempDir>>;
let server: ServeProcess;
let browser: Browser;
let settingsPath = '';

async function signIn(page: Page): Promise<void> {
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await submit(page, 'Sign in');
}

/** Signs in on a device of its own and signs every other session out. */
async function signOutEverywhereElse(): Promise<void> {
  const other = await browser.newContext();
  const page = await other.newPage();
  await page.goto(`${server.url}/dashboard/login`);
  await signIn(page);
  await page.goto(`${server.url}/dashboard/account/sessions`);
  await submit(page, 'Sign out everywhere else');
  await other.close();
}

beforeAll(async () => {
  assertBuilt();
  workspace = await tempDir();
  server = await startServe(['--db', join(workspace.dir, 'session-ended.db'), '--port', '0']);
  browser = await launchChromium();
  const context = await browser.newContext();
  const page = await context.newPage();
  await signUpWithProject(page, server, { email: EMAIL, password: PASSWORD });
  settingsPath = `${new URL(page.url()).pathname.replace(/\/$/, '')}/settings`;
  await context.close();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (server?.child.exitCode === null) server.child.kill('SIGTERM');
  await server?.exited;
  await workspace?.remove();
});

describe('a form sent after the session ended', () => {
  for (const javaScriptEnabled of [true, false]) {
    it(`says why and leads back to its page${javaScriptEnabled ? ', with what was typed' : ' (JavaScript off)'}`, async () => {
      const context = await browser.newContext({ javaScriptEnabled });
      const page = await context.newPage();
      try {
        await page.goto(`${server.url}/dashboard/login`);
        await signIn(page);
        await page.goto(`${server.url}${settingsPath}`);
        await signOutEverywhereElse();

        const typed = javaScriptEnabled ? 'Shop, renamed after a sign-in' : 'Never sent';
        await page.getByLabel('Project name').fill(typed);
        await submit(page, 'Rename');
        expect(new URL(page.url()).pathname).toBe('/dashboard/login');
        expect(await page.locator('main').textContent()).toContain('Your session has ended, so nothing was changed');
        // axe runs as a script in the page: the layout check, which runs it, only where scripts do.
        if (javaScriptEnabled) expect(await layoutFindings(page, 'session-ended')).toEqual([]);

        await signIn(page);
        expect(new URL(page.url()).pathname).toBe(settingsPath);
        const field = page.getByLabel('Project name');
        if (javaScriptEnabled) {
          expect(await field.inputValue()).toBe(typed);
          expect(await page.locator('[data-restored]').textContent()).toContain('filled in');
          expect(await layoutFindings(page, 'session-restored')).toEqual([]);
          await submit(page, 'Rename');
          await page.goto(`${server.url}${settingsPath}`);
          expect(await page.getByLabel('Project name').inputValue()).toBe(typed);
        } else {
          expect(await field.inputValue()).not.toBe(typed);
        }
      } finally {
        await context.close();
      }
    }, 60_000);
  }

  it('fills in a webhook endpoint’s event checkboxes as they were ticked, not as the page began', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${server.url}/dashboard/login`);
      await signIn(page);
      const webhooksPath = settingsPath.replace(/\/settings$/, '/webhooks');
      await page.goto(`${server.url}${webhooksPath}`);
      await signOutEverywhereElse();

      await page.getByLabel('Endpoint URL').fill('https://example.com/after-sign-in');
      const boxes = page.locator('input[type="checkbox"][name="events"]');
      const values = await boxes.evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
      const ticked: string[] = values.filter((value) =>
        ['notification.completed', 'browser.connected'].includes(value),
      );
      expect(ticked).toHaveLength(2);
      for (const value of values) {
        await page.locator(`input[name="events"][value="${value}"]`).setChecked(ticked.includes(value));
      }
      await submit(page, 'Create endpoint');
      expect(new URL(page.url()).pathname).toBe('/dashboard/login');

      await signIn(page);
      expect(new URL(page.url()).pathname).toBe(webhooksPath);
      expect(await page.locator('[data-restored]').textContent()).toContain('filled in');
      const checked = await boxes.evaluateAll((inputs) =>
        inputs.filter((input) => (input as HTMLInputElement).checked).map((input) => (input as HTMLInputElement).value),
      );
      expect(checked.sort()).toEqual([...ticked].sort());
    } finally {
      await context.close();
    }
  }, 60_000);
});
