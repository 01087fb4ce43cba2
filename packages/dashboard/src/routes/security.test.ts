import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDashboard, signUpVerified } from '../../../../test/support/dashboard-app.js';
import { challengeOf, createJarBrowser, softAuthenticator } from '../../../../test/support/soft-authenticator.js';

const PASSWORD = 'correct horse battery';
const EMAIL = 'ada@example.com';

let dashboard: ReturnType<typeof createTestDashboard>;
beforeEach(() => {
  dashboard = createTestDashboard();
});
afterEach(async () => {
  await dashboard.close();
});

/** Signs up, adds a passkey through the security page; returns the authenticator and the codes. */
async function withPasskey() {
  const browser = createJarBrowser(dashboard.app);
  const signup = await signUpVerified(dashboard, EMAIL);
  browser.cookies.set('tidings_session', signup.cookie().split('=')[1] ?? '');
  const authenticator = softAuthenticator();
  const page = await browser.get('/dashboard/account/security');
  expect(page.status).toBe(200);
  const added = await browser.post('/dashboard/account/security/passkeys', {
    name: 'Laptop',
    response: authenticator.register(challengeOf(await page.text())),
  });
  expect(added.status).toBe(200);
  const html = await added.text();
  const codes = [...html.matchAll(/<code data-secret="true">([A-Z0-9-]+)<\/code>/g)].map((match) => match[1]!);
  expect(codes).toHaveLength(10);
  await browser.post('/dashboard/logout', {});
  expect(browser.cookies.has('tidings_session')).toBe(false);
  return { browser, authenticator, codes };
}

async function passwordStep(browser: ReturnType<typeof createJarBrowser>) {
  const response = await browser.post('/dashboard/login', { email: EMAIL, password: PASSWORD });
  expect(response.status).toBe(303);
  expect(response.headers.get('Location')).toBe('/dashboard/login/second-factor');
  expect(browser.cookies.has('tidings_session')).toBe(false);
  expect(browser.cookies.get('tidings_pending')).toMatch(/^[A-Za-z0-9_-]{43}$/);
}

describe('passkeys as a second factor', () => {
  it('adds a passkey with recovery codes stored as hashes only, and lists it', async () => {
    const { browser, codes } = await withPasskey();
    const account = await dashboard.dashboardStore.findAccountByEmail(EMAIL);
    const [passkey] = await dashboard.dashboardStore.listPasskeys(account!.account.id);
    expect(passkey).toMatchObject({ name: 'Laptop', transports: ['internal'], lastUsedAt: null });
    expect(await dashboard.dashboardStore.countRecoveryCodes(account!.account.id)).toBe(10);
    expect(new Set(codes).size).toBe(10);
    // The page of a later visit shows no code again.
    await passwordStep(browser);
    const useCode = await browser.post('/dashboard/login/second-factor/recovery', { code: codes[0]! });
    expect(useCode.status).toBe(303);
    const later = await (await browser.get('/dashboard/account/security')).text();
    expect(later).toContain('Laptop');
    expect(later).toContain('9 unused recovery codes left');
    for (const code of codes) expect(later).not.toContain(code);
    // Security is a tab of the account's pages, not a link of its own in the header.
    expect(later).toContain('<nav class="tabs" aria-label="Account settings">');
    expect(later).toContain('href="/dashboard/account/security" aria-current="page"');
    expect(later).not.toContain('<a href="/dashboard/account/security">Security</a></nav>');
  });

  it('starts no session before the second factor: the pending cookie alone opens nothing', async () => {
    const { browser } = await withPasskey();
    await passwordStep(browser);
    const home = await browser.get('/dashboard');
    expect(home.status).toBe(303);
    expect(home.headers.get('Location')).toBe('/dashboard/login');
    const security = await browser.get('/dashboard/account/security');
    expect(security.headers.get('Location')).toBe('/dashboard/login?next=%2Fdashboard%2Faccount%2Fsecurity');
    // The pending token is in the store only as its hash.
    const token = browser.cookies.get('tidings_pending')!;
    expect(await dashboard.dashboardStore.findPendingSignIn({ hash: token, now: dashboard.clock.now() })).toBeNull();
  });

  it('signs in with the passkey, once per challenge, and refuses a used or expired challenge', async () => {
    const { browser, authenticator } = await withPasskey();
    await passwordStep(browser);
    const page = await browser.get('/dashboard/login/second-factor');
    expect(page.status).toBe(200);
    const challenge = challengeOf(await page.text());
    // A wrong answer uses the challenge up: the right answer to it is refused afterwards.
    const wrong = await browser.post('/dashboard/login/second-factor/passkey', {
      response: softAuthenticator().assert(challenge),
    });
    expect(wrong.status).toBe(401);
    const retry = challengeOf(await wrong.text());
    expect(retry).not.toBe(challenge);
    const used = await browser.post('/dashboard/login/second-factor/passkey', {
      response: authenticator.assert(challenge),
    });
    expect(used.status).toBe(401);
    expect(await used.text()).toContain('could not be checked');
    const page2 = await browser.get('/dashboard/login/second-factor');
    const fresh = challengeOf(await page2.text());
    const taken = await browser.post('/dashboard/login/second-factor/passkey', {
      response: authenticator.assert(fresh),
    });
    expect(taken.status).toBe(303);
    expect(taken.headers.get('Location')).toBe('/dashboard');
    expect(browser.cookies.has('tidings_pending')).toBe(false);
    expect(browser.cookies.get('tidings_session')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await browser.get('/dashboard')).status).toBe(200);
    const account = await dashboard.dashboardStore.findAccountByEmail(EMAIL);
    const [passkey] = await dashboard.dashboardStore.listPasskeys(account!.account.id);
    expect(passkey?.lastUsedAt).toBe(dashboard.clock.now());
    expect(passkey?.counter).toBeGreaterThan(0);

    // A challenge older than 5 minutes is refused, though the pending sign-in still lives.
    await browser.post('/dashboard/logout', {});
    await passwordStep(browser);
    const late = challengeOf(await (await browser.get('/dashboard/login/second-factor')).text());
    dashboard.clock.advance(5 * 60_000 + 1);
    const expired = await browser.post('/dashboard/login/second-factor/passkey', {
      response: authenticator.assert(late),
    });
    expect(expired.status).toBe(400);
    expect(await expired.text()).toContain('has expired or was used');
    expect(browser.cookies.has('tidings_session')).toBe(false);
    // The pending sign-in itself ends after 10 minutes: back to the first step.
    dashboard.clock.advance(5 * 60_000);
    const gone = await browser.post('/dashboard/login/second-factor/passkey', { response: authenticator.assert(late) });
    expect(gone.status).toBe(303);
    expect(gone.headers.get('Location')).toBe('/dashboard/login');
    expect(browser.cookies.has('tidings_session')).toBe(false);
  });

  it('takes each recovery code once, refuses a wrong one, and says the passkey needs JavaScript', async () => {
    const { browser, codes } = await withPasskey();
    await passwordStep(browser);
    const noScript = await browser.post('/dashboard/login/second-factor/passkey', { response: '' });
    expect(noScript.status).toBe(400);
    expect(await noScript.text()).toContain('needs JavaScript');
    const wrong = await browser.post('/dashboard/login/second-factor/recovery', { code: 'AAAAA-AAAAA' });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('not right, or it was used already');
    const empty = await browser.post('/dashboard/login/second-factor/recovery', { code: '' });
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain('Enter a recovery code');
    // Typed in lower case with spaces around: the same code.
    const right = await browser.post('/dashboard/login/second-factor/recovery', {
      code: ` ${codes[3]!.toLowerCase()} `,
    });
    expect(right.status).toBe(303);
    expect(browser.cookies.has('tidings_session')).toBe(true);
    await browser.post('/dashboard/logout', {});
    await passwordStep(browser);
    const again = await browser.post('/dashboard/login/second-factor/recovery', { code: codes[3]! });
    expect(again.status).toBe(401);
    expect(browser.cookies.has('tidings_session')).toBe(false);
  });

  it('puts the mailed sign-in code through the second step too', async () => {
    const { browser } = await withPasskey();
    const signInCode = await createSignInCode(EMAIL);
    const response = await browser.post('/dashboard/login/code', { email: EMAIL, code: signInCode });
    expect(response.status).toBe(303);
    expect(response.headers.get('Location')).toBe('/dashboard/login/second-factor');
    expect(browser.cookies.has('tidings_session')).toBe(false);
  });

  it('throttles guesses at recovery codes', async () => {
    const { browser } = await withPasskey();
    await passwordStep(browser);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push((await browser.post('/dashboard/login/second-factor/recovery', { code: 'AAAAA-AAAAA' })).status);
    }
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
  });

  it('removes a passkey with the password only; then the password alone signs in', async () => {
    const { browser, codes } = await withPasskey();
    await passwordStep(browser);
    await browser.post('/dashboard/login/second-factor/recovery', { code: codes[0]! });
    const account = await dashboard.dashboardStore.findAccountByEmail(EMAIL);
    const [passkey] = await dashboard.dashboardStore.listPasskeys(account!.account.id);
    const wrong = await browser.post('/dashboard/account/security/passkeys/remove', {
      credential: passkey!.credentialId,
      password: 'not the password',
    });
    expect(wrong.status).toBe(401);
    expect(await dashboard.dashboardStore.listPasskeys(account!.account.id)).toHaveLength(1);
    const removed = await browser.post('/dashboard/account/security/passkeys/remove', {
      credential: passkey!.credentialId,
      password: PASSWORD,
    });
    expect(removed.status).toBe(303);
    expect(await dashboard.dashboardStore.listPasskeys(account!.account.id)).toHaveLength(0);
    expect(await dashboard.dashboardStore.countRecoveryCodes(account!.account.id)).toBe(0);
    await browser.post('/dashboard/logout', {});
    const signIn = await browser.post('/dashboard/login', { email: EMAIL, password: PASSWORD });
    expect(signIn.headers.get('Location')).toBe('/dashboard');
    expect(browser.cookies.has('tidings_session')).toBe(true);
  });

  it('makes new recovery codes with the password only, and the earlier ones stop working', async () => {
    const { browser, codes } = await withPasskey();
    await passwordStep(browser);
    await browser.post('/dashboard/login/second-factor/recovery', { code: codes[0]! });
    const wrong = await browser.post('/dashboard/account/security/recovery-codes', { password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('That password is not right.');
    const made = await browser.post('/dashboard/account/security/recovery-codes', { password: PASSWORD });
    expect(made.status).toBe(200);
    const fresh = [...(await made.text()).matchAll(/<code data-secret="true">([A-Z0-9-]+)<\/code>/g)].map(
      (match) => match[1]!,
    );
    expect(fresh).toHaveLength(10);
    expect(fresh.filter((code) => codes.includes(code))).toEqual([]);
    await browser.post('/dashboard/logout', {});
    await passwordStep(browser);
    expect((await browser.post('/dashboard/login/second-factor/recovery', { code: codes[1]! })).status).toBe(401);
    expect((await browser.post('/dashboard/login/second-factor/recovery', { code: fresh[0]! })).status).toBe(303);
    expect(browser.cookies.has('tidings_session')).toBe(true);
  });

  it('refuses a passkey added without JavaScript, with a used challenge, or without a name', async () => {
    const browser = createJarBrowser(dashboard.app);
    const signup = await signUpVerified(dashboard, EMAIL);
    browser.cookies.set('tidings_session', signup.cookie().split('=')[1] ?? '');
    const authenticator = softAuthenticator();
    const challenge = challengeOf(await (await browser.get('/dashboard/account/security')).text());
    const noName = await browser.post('/dashboard/account/security/passkeys', { name: ' ', response: '' });
    expect(noName.status).toBe(400);
    expect(await noName.text()).toContain('Name the passkey');
    const noScript = await browser.post('/dashboard/account/security/passkeys', { name: 'Phone', response: '' });
    expect(noScript.status).toBe(400);
    expect(await noScript.text()).toContain('needs JavaScript');
    const garbage = await browser.post('/dashboard/account/security/passkeys', { name: 'Phone', response: '{"id":1' });
    expect(garbage.status).toBe(400);
    // Each page shown made a new challenge; the first one is gone.
    const stale = await browser.post('/dashboard/account/security/passkeys', {
      name: 'Phone',
      response: authenticator.register(challenge),
    });
    expect(stale.status).toBe(400);
    const account = await dashboard.dashboardStore.findAccountByEmail(EMAIL);
    expect(await dashboard.dashboardStore.listPasskeys(account!.account.id)).toEqual([]);
  });
});

/** Issues a one-time sign-in code as the operator CLI does. */
async function createSignInCode(email: string): Promise<string> {
  const { createAccountService } = await import('../domain/accounts.js');
  const service = createAccountService({
    store: dashboard.dashboardStore,
    admin: dashboard.tidings.admin,
    mailer: dashboard.mailer,
    clock: dashboard.clock,
  });
  return service.issueSignInCode(email, 60_000);
}
