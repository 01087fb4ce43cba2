import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertBuilt, type ServeProcess, startServe, tempDir } from '@tidings/test-support/cli-process.js';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cspViolations, layoutFindings, mailedCode, recordContext, submit } from './dashboard-harness.js';
import { launchChromium } from './harness.js';

/**
 * Passkeys as a second factor in Chromium, with the DevTools protocol's virtual authenticator:
 * add a passkey, keep the recovery codes, sign in with password then passkey, or password then
 * a recovery code (once each, with JavaScript off too), and remove the passkey. The pages are
 * screenshotted at 1280 and 390 px (`test-artifacts/dashboard/`) and checked with axe.
 */

const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery';

let workspace: Awaited<ReturnType<typeof tempDir>>;
let server: ServeProcess;
/** The server as `localhost`: a WebAuthn RP ID is a host name, never an IP address. */
let origin = '';
let browser: Browser;
let context: BrowserContext;
let recorder: ReturnType<typeof recordContext>;
let page: Page;
let cdp: CDPSession;
let authenticatorId = '';
let codes: string[] = [];
const findings: string[] = [];

async function check(target: Page, name: string): Promise<void> {
  findings.push(...(await layoutFindings(target, name)));
}

async function signOut(): Promise<void> {
  await submit(page, 'Sign out');
  expect(new URL(page.url()).pathname).toBe('/dashboard/login');
}

/** The first step: email and password, leading to the second step. */
async function passwordStep(target: Page = page): Promise<void> {
  await target.goto(`${origin}/dashboard/login`);
  await target.getByLabel('Email').fill(EMAIL);
  await target.getByLabel('Password').fill(PASSWORD);
  await submit(target, 'Sign in');
}

async function useRecoveryCode(code: string, target: Page = page): Promise<void> {
  await target.getByLabel('Recovery code').fill(code);
  await submit(target, 'Sign in with a recovery code');
}

async function sessionCookie(target: BrowserContext = context) {
  return (await target.cookies()).find((cookie) => cookie.name === 'tidings_session');
}

beforeAll(async () => {
  assertBuilt();
  workspace = await tempDir();
  server = await startServe(['--db', join(workspace.dir, 'passkeys.db'), '--port', '0']);
  origin = server.url.replace('127.0.0.1', 'localhost');
  browser = await launchChromium();
  context = await browser.newContext();
  recorder = recordContext(context);
  page = await context.newPage();
  cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const added = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
  authenticatorId = added.authenticatorId;
});

afterAll(async () => {
  await browser?.close();
  if (server?.child.exitCode === null) server.child.kill('SIGTERM');
  await server?.exited;
  await workspace?.remove();
});

describe('passkeys in Chromium', () => {
  it('signs up, adds a passkey and shows the recovery codes once', async () => {
    await page.goto(`${origin}/dashboard/signup`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await submit(page, 'Create account');
    await page.getByLabel('Verification code').fill(await mailedCode(server, EMAIL));
    await submit(page, 'Verify');
    expect(await sessionCookie()).toBeDefined();

    // Security is a tab of the account's pages.
    await page.getByRole('link', { name: 'Account', exact: true }).click();
    await page.getByRole('link', { name: 'Security' }).click();
    await page.waitForURL(`${origin}/dashboard/account/security`);
    expect(await page.textContent('main')).toContain('No passkeys yet');
    await check(page, 'security-empty');
    await page.getByLabel('Passkey name').fill('Work laptop');
    await submit(page, 'Add a passkey');
    const main = (await page.textContent('main')) ?? '';
    expect(main).toContain('The passkey is added');
    codes = await page.locator('#recovery-codes code').allTextContents();
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(/^[0-9A-Z]{5}-[0-9A-Z]{5}$/);
    // The script saves them as a text file, one a line (and copies them the same way).
    const [saved] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download' }).click(),
    ]);
    expect(saved.suggestedFilename()).toBe('tidings-recovery-codes.txt');
    const file = await saved.path();
    expect((await readFile(file, 'utf8')).trim().split('\n')).toEqual(codes);
    expect(await page.getByRole('button', { name: 'Copy' }).isVisible()).toBe(true);
    expect(await page.textContent('#copy-status')).toContain('saved as tidings-recovery-codes.txt');
    expect(await page.locator('tr[data-passkey="Work laptop"]').count()).toBe(1);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    await check(page, 'security-codes');
    // A reload shows the list, never the codes again.
    expect(new URL(page.url()).pathname).toBe('/dashboard/account/security');
    await page.reload();
    const again = (await page.textContent('main')) ?? '';
    expect(again).toContain('Work laptop');
    expect(again).toContain('10 unused recovery codes left');
    for (const code of codes) expect(again).not.toContain(code);
    await check(page, 'security');
  });

  it('asks for the passkey after the password, and signs in with it', async () => {
    await signOut();
    await passwordStep();
    expect(new URL(page.url()).pathname).toBe('/dashboard/login/second-factor');
    expect(await sessionCookie()).toBeUndefined();
    await check(page, 'second-factor');
    // Nothing behind sign-in opens yet.
    const home = await context.request.get(`${origin}/dashboard`, { maxRedirects: 0 });
    expect(home.status()).toBe(303);
    await submit(page, 'Use your passkey');
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    expect(await sessionCookie()).toBeDefined();
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials[0]?.signCount).toBeGreaterThan(0);
    await page.goto(`${origin}/dashboard/account/security`);
    const lastUsed = await page.locator('tr[data-passkey="Work laptop"] td').nth(2).textContent();
    expect(lastUsed).not.toContain('never');
  });

  it('signs in with a recovery code once, and refuses it and a wrong one afterwards', async () => {
    await signOut();
    await passwordStep();
    await useRecoveryCode(codes[0]!.toLowerCase());
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    expect(await sessionCookie()).toBeDefined();

    await signOut();
    await passwordStep();
    await useRecoveryCode(codes[0]!);
    expect(new URL(page.url()).pathname).toBe('/dashboard/login/second-factor/recovery');
    expect(await page.textContent('main')).toContain('This recovery code is not right, or it was used already.');
    expect(await sessionCookie()).toBeUndefined();
    await useRecoveryCode('ZZZZZ-ZZZZZ');
    expect(await page.textContent('main')).toContain('This recovery code is not right, or it was used already.');
    await check(page, 'second-factor-error');
    expect(await sessionCookie()).toBeUndefined();
  });

  it('lets a browser without JavaScript sign in with a recovery code, and says the passkey needs it', async () => {
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    const target = await noScript.newPage();
    await passwordStep(target);
    expect(await target.textContent('main')).toContain('Using a passkey needs JavaScript');
    await submit(target, 'Use your passkey');
    expect(await target.textContent('main')).toContain('needs JavaScript');
    await useRecoveryCode(codes[1]!, target);
    expect(new URL(target.url()).pathname).toBe('/dashboard');
    expect(await sessionCookie(noScript)).toBeDefined();
    await noScript.close();
  });

  it('removes the passkey with the password; then the password alone signs in', async () => {
    await passwordStep();
    await submit(page, 'Use your passkey');
    await page.goto(`${origin}/dashboard/account/security`);
    const remove = page.locator('form[action$="/passkeys/remove"]');
    await remove.getByLabel('Current password').fill('not my password');
    await submit(page, 'Remove the passkey');
    expect(await page.textContent('main')).toContain('That password is not right.');
    await page.locator('form[action$="/passkeys/remove"]').getByLabel('Current password').fill(PASSWORD);
    await submit(page, 'Remove the passkey');
    expect(await page.textContent('main')).toContain('The passkey is removed.');
    expect(await page.textContent('main')).toContain('No passkeys yet');

    await signOut();
    await passwordStep();
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    expect(await sessionCookie()).toBeDefined();
  });

  it('keeps the pages axe-clean, within the screen, CSP-clean, and the codes out of other responses', async () => {
    expect(findings).toEqual([]);
    expect(cspViolations(recorder.console)).toEqual([]);
    // Each code was in one response only: the page that made them.
    for (const code of codes.slice(2)) {
      const holding = await recorder.holding(code);
      expect(holding.map((entry) => new URL(entry.url).pathname)).toEqual(['/dashboard/account/security/passkeys']);
    }
  });
});
