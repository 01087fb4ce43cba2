import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertBuilt, type ServeProcess, startServe, tempDir } from '@tidings/test-support/cli-process.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  layoutFindings,
  mailedCode,
  recordContext,
  seriousAxeViolations,
  signUpWithProject,
  submit,
} from './dashboard-harness.js';
import { launchChromium, until } from './harness.js';

/**
 * A customer looks after their own account in Chromium, with JavaScript's help and without it:
 * deletes a project (its key stops at once), changes the password, sees and ends sessions,
 * moves the account to another address by a mailed code, and deletes the account. Each page is
 * checked with axe and screenshotted at 1280 and 390 px (`test-artifacts/dashboard/`).
 */

const artifacts = fileURLToPath(new URL('../../test-artifacts/dashboard/', import.meta.url));
const EMAIL = 'grace@example.com';
const NEW_EMAIL = 'grace@new.example.com';
const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'purple lantern orbit nine';
const PHONE_AGENT =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Mobile Safari/537.36';

let workspace: Awaited<ReturnType<typeof tempDir>>;
let server: ServeProcess;
let browser: Browser;
let desk: BrowserContext;
let phone: BrowserContext;
let recorder: ReturnType<typeof recordContext>;
let page: Page;
let key = '';
const findings: string[] = [];

/** Opens `path` at each width: no sideways scroll, no serious axe finding, a screenshot each. */
async function look(name: string, path: string, target: Page = page): Promise<void> {
  await target.goto(`${server.url}${path}`);
  findings.push(...(await layoutFindings(target, name)));
}

async function apiStatus(apiKey: string): Promise<number> {
  const response = await fetch(`${server.url}/v1/notifications/ntf_00000000000000000000000000`, {
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  return response.status;
}

async function signInWithPassword(target: Page, email: string, password: string): Promise<void> {
  await target.goto(`${server.url}/dashboard/login`);
  await target.getByLabel('Email').fill(email);
  await target.getByLabel('Password').fill(password);
  await submit(target, 'Sign in');
}

/** Whether a page of the context is still signed in: a page behind sign-in answers, or leads to the login. */
async function signedIn(target: Page): Promise<boolean> {
  await target.goto(`${server.url}/dashboard/account`);
  return new URL(target.url()).pathname === '/dashboard/account';
}

beforeAll(async () => {
  assertBuilt();
  await mkdir(artifacts, { recursive: true });
  workspace = await tempDir();
  server = await startServe(['--db', join(workspace.dir, 'self-service.db'), '--port', '0']);
  browser = await launchChromium();
  desk = await browser.newContext();
  // The second device has JavaScript off: every form works by post, redirect, get.
  phone = await browser.newContext({ userAgent: PHONE_AGENT, javaScriptEnabled: false });
  recorder = recordContext(desk);
  page = await desk.newPage();
});

afterAll(async () => {
  await browser?.close();
  if (server?.child.exitCode === null) server.child.kill('SIGTERM');
  await server?.exited;
  await workspace?.remove();
});

describe('dashboard self-service in Chromium', () => {
  it('signs up and makes a project with a working key', async () => {
    await signUpWithProject(page, server, { email: EMAIL, password: PASSWORD });
    await page.getByLabel('Key name').fill('production server');
    await submit(page, 'Create key');
    key = ((await page.textContent('#new-key')) ?? '').trim();
    expect(key).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    expect(await apiStatus(key)).toBe(404);
  });

  it('deletes a project only when its name is typed; its key answers 401 right after', async () => {
    const projectPath = new URL(page.url()).pathname;
    await page.goto(`${server.url}${projectPath}/settings`);
    await page.getByRole('link', { name: 'Delete this project' }).click();
    await page.waitForURL(/\/delete$/);
    await look('project-delete', `${projectPath}/delete`);

    // The field counts the name's characters as it is typed, as the project's name field does.
    await page.getByLabel("Type the project's name to confirm").fill('Shopp');
    expect(await page.textContent('#field-name-count')).toBe('5 / 100');
    const refused = await submit(page, 'Delete the project');
    expect(refused?.status()).toBe(400);
    const banner = (await page.getByRole('alert').first().textContent()) ?? '';
    expect(banner).toContain('nothing was deleted');
    expect(banner).toContain('Type the project’s name exactly as shown');
    // Plain words: no problem code in the banner.
    expect(banner).not.toMatch(/[A-Z]{2,}_[A-Z_]+/);
    findings.push(...(await layoutFindings(page, 'project-delete-refused')));
    expect(await apiStatus(key)).toBe(404);

    await page.getByLabel("Type the project's name to confirm").fill('Shop');
    await submit(page, 'Delete the project');
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    expect(await page.textContent('main')).toContain('The project is deleted');
    expect(await page.textContent('main')).toContain('0/10 projects');
    expect(await apiStatus(key)).toBe(401);
  });

  it('changes the password: refuses a wrong current one and a weak new one; ends the other sessions only', async () => {
    const other = await phone.newPage();
    await signInWithPassword(other, EMAIL, PASSWORD);
    expect(await signedIn(other)).toBe(true);

    await page.goto(`${server.url}/dashboard`);
    await page.getByRole('link', { name: 'Account', exact: true }).click();
    await page.getByRole('link', { name: 'Change your password' }).click();
    await look('account-password', '/dashboard/account/password');
    await page.getByLabel('Current password').fill('not my password');
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    expect((await submit(page, 'Change password'))?.status()).toBe(401);
    expect(await page.textContent('main')).toContain('That is not your current password.');
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password').fill('password1234');
    expect((await submit(page, 'Change password'))?.status()).toBe(400);
    findings.push(...(await seriousAxeViolations(page)));
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await submit(page, 'Change password');
    expect(await page.textContent('main')).toContain('Your password is changed');
    expect(await signedIn(page)).toBe(true);
    expect(await signedIn(other)).toBe(false);
    await other.close();
  });

  it('lists the sessions with the current one marked, ends one, then every other', async () => {
    const other = await phone.newPage();
    await signInWithPassword(other, EMAIL, NEW_PASSWORD);
    await look('account-sessions', '/dashboard/account/sessions');
    const main = (await page.textContent('main')) ?? '';
    expect(main).toContain('2 active sessions');
    expect(main).toContain('Chrome on Android');
    expect(main).toContain('this session');
    const cookie = (await desk.cookies()).find((entry) => entry.name === 'tidings_session')!.value;
    expect(await page.content()).not.toContain(cookie);

    await submit(page, 'Sign out this session');
    expect(await page.textContent('main')).toContain('That session is signed out.');
    expect(await signedIn(other)).toBe(false);

    await signInWithPassword(other, EMAIL, NEW_PASSWORD);
    await page.goto(`${server.url}/dashboard/account/sessions`);
    await submit(page, 'Sign out everywhere else');
    expect(await page.textContent('main')).toContain('Every other session is signed out.');
    expect(await page.textContent('main')).toContain('1 active session');
    expect(await signedIn(other)).toBe(false);
    expect(await signedIn(page)).toBe(true);
    await other.close();
  });

  it('changes the email by a code mailed to the new address; a wrong code is refused; the old address is told', async () => {
    await look('account-email', '/dashboard/account/email');
    await page.getByLabel('New email address').fill(NEW_EMAIL);
    await page.getByLabel('Current password').fill(NEW_PASSWORD);
    await submit(page, 'Send a code');
    expect(new URL(page.url()).pathname).toBe('/dashboard/account/email/confirm');
    const code = await mailedCode(server, NEW_EMAIL);
    await page.getByLabel('Code').fill(code === '000000' ? '111111' : '000000');
    expect((await submit(page, 'Change my email address'))?.status()).toBe(400);
    expect(await page.textContent('main')).toContain('That code is not right.');
    findings.push(...(await seriousAxeViolations(page)));
    await page.setViewportSize({ width: 390, height: 900 });
    await page.screenshot({ path: join(artifacts, 'account-email-confirm-390.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: join(artifacts, 'account-email-confirm-1280.png'), fullPage: true });
    await page.getByLabel('Code').fill(code);
    await submit(page, 'Change my email address');
    expect(await page.textContent('main')).toContain('Your email address is changed');
    expect(await page.textContent('header')).toContain(NEW_EMAIL);
    await until(
      async () => server.stderr(),
      (text) => text.includes(`[mail] to=${EMAIL} subject="The email address of your Tidings account changed"`),
      'the notice to the old address',
    );
    await look('account', '/dashboard/account');
  });

  it('deletes the account after the password and the email; signs out; the address may sign up again', async () => {
    await look('account-delete', '/dashboard/account/delete');
    await page.getByLabel('Type your email address to confirm').fill(NEW_EMAIL);
    await page.getByLabel('Password', { exact: true }).fill('wrong password!');
    expect((await submit(page, 'Delete my account'))?.status()).toBe(401);
    expect(await page.textContent('main')).toContain('Nothing was deleted');
    await page.getByLabel('Type your email address to confirm').fill(NEW_EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD);
    await submit(page, 'Delete my account');
    expect(new URL(page.url()).pathname).toBe('/dashboard/account/deleted');
    expect(await page.textContent('main')).toContain('Your account is deleted');
    await look('account-deleted', '/dashboard/account/deleted');
    expect((await desk.cookies()).find((entry) => entry.name === 'tidings_session')).toBeUndefined();
    expect(await signedIn(page)).toBe(false);

    // A free address gets a code at sign-up (a taken one would get a warning instead).
    const mailsBefore = server.stderr().split(`[mail] to=${NEW_EMAIL} `).length - 1;
    await page.goto(`${server.url}/dashboard/signup`);
    await page.getByLabel('Email').fill(NEW_EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await submit(page, 'Create account');
    await page.getByLabel('Verification code').fill(await mailedCode(server, NEW_EMAIL, mailsBefore));
    await submit(page, 'Verify');
    expect(await page.textContent('main')).toContain('Your email address is verified');
  });

  it('found no page that scrolls sideways or fails axe, and no password in any response', async () => {
    expect(findings).toEqual([]);
    for (const secret of [PASSWORD, NEW_PASSWORD]) expect(await recorder.holding(secret)).toEqual([]);
  });
});
