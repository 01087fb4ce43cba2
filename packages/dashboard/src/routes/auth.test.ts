import { createMemoryLimiter } from '@tidings/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDashboard, ORIGIN, signUpVerified } from '../../../../test/support/dashboard-app.js';

let dashboard: ReturnType<typeof createTestDashboard>;
beforeEach(() => {
  dashboard = createTestDashboard();
});
afterEach(async () => {
  await dashboard.close();
});

const PASSWORD = 'correct horse battery';

describe('sign-up', () => {
  it('creates an unverified account and mails a code, which signs it in with a fresh HttpOnly Lax cookie', async () => {
    const browser = dashboard.browser();
    const response = await browser.post('/dashboard/signup', { email: ' Ada@Example.com ', password: PASSWORD });
    expect(response.status).toBe(303);
    expect(response.headers.get('Location')).toBe('/dashboard/signup/verify?email=ada%40example.com');
    // Nobody is signed in before the code comes back: sign-up answers the same for a taken address.
    expect(response.headers.get('Set-Cookie')).toBeNull();
    const [mail] = dashboard.mailer.sent;
    expect(mail?.to).toBe('ada@example.com');
    expect(mail?.code).toMatch(/^\d{6}$/);
    expect(mail?.text).toContain(mail?.code);
    const found = await dashboard.dashboardStore.findAccountByEmail('ada@example.com');
    expect(found?.account.verified).toBe(false);
    expect(found?.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(found?.passwordHash).not.toContain(PASSWORD);
    const page = await browser.get('/dashboard/signup/verify?email=ada%40example.com');
    expect(await page.text()).toContain('Enter it to finish creating your account');

    const wrong = await browser.post('/dashboard/signup/verify', {
      email: 'ada@example.com',
      code: mail?.code === '000000' ? '111111' : '000000',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.headers.get('Set-Cookie')).toBeNull();
    const verified = await browser.post('/dashboard/signup/verify', { email: 'ada@example.com', code: mail!.code! });
    expect(verified.status).toBe(303);
    const cookie = verified.headers.get('Set-Cookie') ?? '';
    expect(cookie).toMatch(/^tidings_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/');
    expect(cookie).not.toContain('Secure');
    expect((await dashboard.dashboardStore.findAccountByEmail('ada@example.com'))?.account.verified).toBe(true);
    // The session id itself is nowhere in the store: only its hash.
    const sessionId = /tidings_session=([^;]+)/.exec(cookie)?.[1] ?? '';
    expect(
      await dashboard.dashboardStore.resumeSession({ hash: sessionId, now: dashboard.clock.now(), idleExpiresAt: 0 }),
    ).toBeNull();
    expect(await (await browser.get('/dashboard')).text()).toContain('name="name"');
  });

  it('answers a taken address exactly as a new one, and mails its owner instead of a code', async () => {
    await dashboard.browser().post('/dashboard/signup', { email: 'owner@example.com', password: PASSWORD });
    const before = await dashboard.dashboardStore.findAccountByEmail('owner@example.com');
    const sentBefore = dashboard.mailer.sent.length;
    const taken = await dashboard
      .browser()
      .post('/dashboard/signup', { email: 'Owner@example.com', password: 'another strong phrase' });
    const fresh = await dashboard
      .browser()
      .post('/dashboard/signup', { email: 'newcomer@example.com', password: 'another strong phrase' });
    const shape = async (response: Response) => ({
      status: response.status,
      location: response.headers.get('Location')?.replace(/email=[^&]*/, 'email=E'),
      cookie: response.headers.get('Set-Cookie'),
      body: await response.text(),
    });
    expect(await shape(taken)).toEqual(await shape(fresh));
    const warning = dashboard.mailer.sent[sentBefore];
    expect(warning?.to).toBe('owner@example.com');
    expect(warning?.code).toBeUndefined();
    expect(warning?.text).toContain('already has one');
    expect(warning?.text).toContain(`${ORIGIN}/dashboard/login`);
    // The owner's account is as it was: same password, nothing verified by the attempt.
    expect(await dashboard.dashboardStore.findAccountByEmail('owner@example.com')).toEqual(before);
    // The second step gives the attempt nothing either.
    const page = await dashboard.browser().get(taken.headers.get('Location')!);
    expect(page.status).toBe(200);
    const guess = await dashboard
      .browser()
      .post('/dashboard/signup/verify', { email: 'owner@example.com', code: '123456' });
    expect(guess.status).toBe(400);
    expect(guess.headers.get('Set-Cookie')).toBeNull();
  });

  it('names the cookie __Host- and makes it Secure, and sends HSTS, only when the public URL is https', async () => {
    const plain = await dashboard.browser().post('/dashboard/signup', { email: 'p@example.com', password: PASSWORD });
    expect(plain.headers.get('Strict-Transport-Security')).toBeNull();
    expect((await dashboard.browser().get('/dashboard/login')).headers.get('Strict-Transport-Security')).toBeNull();
    await dashboard.close();
    dashboard = createTestDashboard({}, { publicUrl: 'https://notify.example.com' });
    const browser = dashboard.browser();
    const origin = { Origin: 'https://notify.example.com' };
    const signup = await browser.post('/dashboard/signup', { email: 'a@example.com', password: PASSWORD }, origin);
    expect(signup.headers.get('Strict-Transport-Security')).toBe('max-age=31536000; includeSubDomains');
    const code = dashboard.mailer.lastCode('a@example.com')!;
    const response = await browser.post('/dashboard/signup/verify', { email: 'a@example.com', code }, origin);
    expect(response.status).toBe(303);
    const cookie = response.headers.get('Set-Cookie') ?? '';
    expect(cookie).toMatch(/^__Host-tidings_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('Secure');
    expect(cookie).toContain('Path=/');
    expect(cookie).not.toContain('Domain');
    expect(response.headers.get('Strict-Transport-Security')).toBe('max-age=31536000; includeSubDomains');
    // The prefixed cookie is the one read back.
    expect((await browser.get('/dashboard')).status).toBe(200);
  });

  it('refuses a common or easily guessed password, and one built on the email, saying why', async () => {
    for (const password of [
      'password1234',
      'qwertyuiop',
      'iloveyou12',
      '1234567890',
      'aaaaaaaaaaaa',
      'ada@example.com',
    ]) {
      const response = await dashboard.browser().post('/dashboard/signup', { email: 'ada@example.com', password });
      expect(response.status, password).toBe(400);
      expect(await response.text(), password).toContain('Add more words');
    }
    expect(await dashboard.dashboardStore.findAccountByEmail('ada@example.com')).toBeNull();
    const strong = await dashboard
      .browser()
      .post('/dashboard/signup', { email: 'ada@example.com', password: 'orbit lantern quietly' });
    expect(strong.status).toBe(303);
  });

  it('refuses bad input with the field named, and a short password', async () => {
    const browser = dashboard.browser();
    const bad = await browser.post('/dashboard/signup', { email: 'not-an-email', password: 'short' });
    expect(bad.status).toBe(400);
    const html = await bad.text();
    expect(html).toContain('Enter an email address like name@example.com');
    expect(html).toContain('Use at least 10 characters');
    expect(html).not.toContain('value="short"');
  });

  it('is closed, or by invitation only, as the operator chose', async () => {
    await dashboard.close();
    dashboard = createTestDashboard({ signup: 'closed' });
    const closed = await dashboard.browser().post('/dashboard/signup', { email: 'a@example.com', password: PASSWORD });
    expect(closed.status).toBe(403);
    expect(await dashboard.dashboardStore.findAccountByEmail('a@example.com')).toBeNull();

    await dashboard.close();
    dashboard = createTestDashboard({ signup: 'invite' });
    const uninvited = await dashboard
      .browser()
      .post('/dashboard/signup', { email: 'a@example.com', password: PASSWORD });
    expect(uninvited.status).toBe(400);
    expect(await dashboard.dashboardStore.findAccountByEmail('a@example.com')).toBeNull();
    const { createAccountService } = await import('../domain/accounts.js');
    const accounts = createAccountService({
      ...dashboard,
      store: dashboard.dashboardStore,
      admin: dashboard.tidings.admin,
    });
    await accounts.invite('b@example.com', `${ORIGIN}/dashboard/signup`);
    const code = dashboard.mailer.lastCode('b@example.com')!;
    const wrongAddress = await dashboard
      .browser()
      .post('/dashboard/signup', { email: 'a@example.com', password: PASSWORD, code });
    expect(wrongAddress.status).toBe(400);
    const invited = await dashboard
      .browser()
      .post('/dashboard/signup', { email: 'b@example.com', password: PASSWORD, code });
    expect(invited.status).toBe(303);
    expect((await dashboard.dashboardStore.findAccountByEmail('b@example.com'))?.account.verified).toBe(true);
  });
});

/** Signs up, and signs in with the password without verifying (an unverified account may). */
async function signUpUnverified(email = 'a@example.com') {
  const browser = dashboard.browser();
  await browser.post('/dashboard/signup', { email, password: PASSWORD });
  const signedIn = await browser.post('/dashboard/login', { email, password: PASSWORD });
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  return browser;
}

describe('verification', () => {
  it('verifies with the mailed code once; a wrong code counts down its five tries', async () => {
    const browser = await signUpUnverified();
    const code = dashboard.mailer.lastCode('a@example.com')!;
    const wrong = await browser.post('/dashboard/verify', { code: code === '000000' ? '111111' : '000000' });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('4 tries left');
    const right = await browser.post('/dashboard/verify', { code });
    expect(right.status).toBe(303);
    expect((await dashboard.dashboardStore.findAccountByEmail('a@example.com'))?.account.verified).toBe(true);
  });

  it('voids a code after five wrong tries, and limits resends', async () => {
    const browser = await signUpUnverified();
    const code = dashboard.mailer.lastCode('a@example.com')!;
    const wrongCode = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) await browser.post('/dashboard/verify', { code: wrongCode });
    const late = await browser.post('/dashboard/verify', { code });
    expect(late.status).toBe(400);
    expect(await late.text()).toContain('expired or was used up');
    // Sign-up mailed one code; three resends per 15 minutes are allowed, the fourth is refused.
    for (let i = 0; i < 3; i++) expect((await browser.post('/dashboard/verify/resend')).status).toBe(303);
    const refused = await browser.post('/dashboard/verify/resend');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    expect(dashboard.mailer.sent).toHaveLength(4);
    // The newest code works: older ones were replaced.
    expect(
      (await browser.post('/dashboard/verify', { code: dashboard.mailer.lastCode('a@example.com')! })).status,
    ).toBe(303);
  });

  it('voids a code after 15 minutes', async () => {
    const browser = dashboard.browser();
    await browser.post('/dashboard/signup', { email: 'a@example.com', password: PASSWORD });
    dashboard.clock.advance(15 * 60_000);
    const code = dashboard.mailer.lastCode('a@example.com')!;
    const response = await browser.post('/dashboard/signup/verify', { email: 'a@example.com', code });
    expect(response.status).toBe(400);
  });

  it('mails a new sign-up code only to an address waiting for one, answering the same either way', async () => {
    await dashboard.browser().post('/dashboard/signup', { email: 'a@example.com', password: PASSWORD });
    await signUpVerified(dashboard, 'done@example.com');
    const sent = dashboard.mailer.sent.length;
    for (const email of ['a@example.com', 'done@example.com', 'nobody@example.com']) {
      const response = await dashboard.browser().post('/dashboard/signup/verify/resend', { email });
      expect(response.status).toBe(303);
      expect(response.headers.get('Location')).toBe(
        `/dashboard/signup/verify?email=${encodeURIComponent(email)}&sent=1`,
      );
    }
    expect(dashboard.mailer.sent.slice(sent).map((mail) => mail.to)).toEqual(['a@example.com']);
    const code = dashboard.mailer.lastCode('a@example.com')!;
    const verified = await dashboard.browser().post('/dashboard/signup/verify', { email: 'a@example.com', code });
    expect(verified.status).toBe(303);
  });
});

describe('sign-in', () => {
  it('says the same for a wrong password and an unknown email, and signs in with the right one', async () => {
    await dashboard.browser().post('/dashboard/signup', { email: 'a@example.com', password: PASSWORD });
    const wrongPassword = await dashboard
      .browser()
      .post('/dashboard/login', { email: 'a@example.com', password: 'nope nope nope' });
    const unknown = await dashboard.browser().post('/dashboard/login', { email: 'b@example.com', password: PASSWORD });
    expect(wrongPassword.status).toBe(401);
    expect(unknown.status).toBe(401);
    const message = (html: string) => /<div class="notice error"[^>]*>(.*?)<\/div>/.exec(html)?.[1];
    expect(message(await wrongPassword.text())).toBe(message(await unknown.text()));
    const browser = dashboard.browser();
    const ok = await browser.post('/dashboard/login', { email: 'A@example.com', password: PASSWORD });
    expect(ok.status).toBe(303);
    expect((await browser.get('/dashboard')).status).toBe(200);
  });

  it('mails a one-time code to an account that asks, answering the same for an unknown address', async () => {
    await signUpVerified(dashboard, 'ada@example.com');
    const next = '/dashboard/account';
    const browser = dashboard.browser();
    const asked = await browser.post('/dashboard/login/code/send', { email: 'ada@example.com', next });
    expect(asked.status).toBe(303);
    expect(asked.headers.get('Location')).toBe(
      `/dashboard/login/code?email=ada%40example.com&sent=1&next=${encodeURIComponent(next)}`,
    );
    const mail = dashboard.mailer.sent.at(-1)!;
    expect(mail).toMatchObject({ to: 'ada@example.com', subject: 'Your Tidings sign-in code' });
    const page = await (await browser.get(asked.headers.get('Location')!)).text();
    expect(page).toContain('a sign-in code is on its way there');

    const mailsBefore = dashboard.mailer.sent.length;
    const unknown = await dashboard.browser().post('/dashboard/login/code/send', { email: 'nobody@example.com' });
    expect(unknown.headers.get('Location')).toBe('/dashboard/login/code?email=nobody%40example.com&sent=1');
    expect(dashboard.mailer.sent.length).toBe(mailsBefore);

    const signedIn = await browser.post('/dashboard/login/code', { email: 'ada@example.com', code: mail.code!, next });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('Location')).toBe(next);
    expect((await browser.get(next)).status).toBe(200);
  });

  it('throttles guesses at one account from one address with 429 and Retry-After, also for the right password', async () => {
    await dashboard.browser().post('/dashboard/signup', { email: 'a@example.com', password: PASSWORD });
    for (let i = 0; i < 10; i++) {
      expect(
        (await dashboard.browser().post('/dashboard/login', { email: 'a@example.com', password: 'wrong wrong' }))
          .status,
      ).toBe(401);
    }
    const refused = await dashboard.browser().post('/dashboard/login', { email: 'a@example.com', password: PASSWORD });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
    dashboard.clock.advance(15 * 60_000);
    expect(
      (await dashboard.browser().post('/dashboard/login', { email: 'a@example.com', password: PASSWORD })).status,
    ).toBe(303);
  });

  it('cannot be used to lock the owner out: failures from other addresses leave the owner’s sign-in open', async () => {
    await dashboard.close();
    // The client address comes from a header here, so that one test can play many addresses.
    dashboard = createTestDashboard({ getClientAddress: (c) => c.req.header('X-Test-Address') });
    await dashboard.browser().post('/dashboard/signup', { email: 'a@example.com', password: PASSWORD });
    const from = (address: string) => ({ Origin: ORIGIN, 'X-Test-Address': address });
    // Twelve wrong passwords for the owner's email, more than a per-account limit of ten would
    // allow, from two addresses.
    for (let i = 0; i < 12; i++) {
      const wrong = await dashboard
        .browser()
        .post('/dashboard/login', { email: 'a@example.com', password: 'wrong wrong' }, from(`203.0.113.${i % 2}`));
      expect(wrong.status).toBe(401);
    }
    // The owner, from an address of their own, signs in at once.
    const owner = await dashboard
      .browser()
      .post('/dashboard/login', { email: 'a@example.com', password: PASSWORD }, from('198.51.100.7'));
    expect(owner.status).toBe(303);
  });

  it('ends a session after its idle time and after its absolute time', async () => {
    const browser = await signUpVerified(dashboard);
    dashboard.clock.advance(2 * 3_600_000);
    expect((await browser.get('/dashboard')).status).toBe(303);
    const again = await signUpVerified(dashboard, 'b@example.com');
    // Used every hour, it lives 24 hours from sign-in, and not a minute more.
    for (let hour = 1; hour < 24; hour++) {
      dashboard.clock.advance(3_600_000);
      expect((await again.get('/dashboard')).status).toBe(200);
    }
    dashboard.clock.advance(3_600_000);
    expect((await again.get('/dashboard')).status).toBe(303);
  });

  it('signs out: the old cookie no longer works', async () => {
    const browser = await signUpVerified(dashboard);
    const cookie = browser.cookie();
    expect((await browser.post('/dashboard/logout')).status).toBe(303);
    const stale = await dashboard.app.request(`${ORIGIN}/dashboard`, { headers: { Cookie: cookie } });
    expect(stale.status).toBe(303);
  });

  it('resets a password by code and ends the sessions of the old one', async () => {
    const first = await signUpVerified(dashboard);
    const browser = dashboard.browser();
    expect((await browser.post('/dashboard/reset', { email: 'ada@example.com' })).status).toBe(303);
    const unknown = await browser.post('/dashboard/reset', { email: 'nobody@example.com' });
    expect(unknown.status).toBe(303);
    expect(dashboard.mailer.sent.filter((mail) => mail.to === 'nobody@example.com')).toHaveLength(0);
    const code = dashboard.mailer.lastCode('ada@example.com')!;
    const done = await browser.post('/dashboard/reset/confirm', {
      email: 'ada@example.com',
      code,
      password: 'a brand new password',
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('Location')).toBe('/dashboard/login?email=ada%40example.com&reset=1');
    const login = await (await browser.get(done.headers.get('Location')!)).text();
    expect(login).toContain('Your password is set. Sign in with it.');
    expect(login).toContain('value="ada@example.com"');
    expect((await first.get('/dashboard')).status).toBe(303);
    expect(
      (await browser.post('/dashboard/login', { email: 'ada@example.com', password: 'a brand new password' })).status,
    ).toBe(303);
    const reused = await browser.post('/dashboard/reset/confirm', {
      email: 'ada@example.com',
      code,
      password: 'another new password',
    });
    expect(reused.status).toBe(400);
  });
});

describe('CSRF', () => {
  it('refuses a form posted from another origin, or with no origin at all', async () => {
    const browser = dashboard.browser();
    const foreign = await browser.post(
      '/dashboard/signup',
      { email: 'a@example.com', password: PASSWORD },
      { Origin: 'http://evil.test' },
    );
    expect(foreign.status).toBe(403);
    const crossSite = await browser.post(
      '/dashboard/signup',
      { email: 'a@example.com', password: PASSWORD },
      { 'Sec-Fetch-Site': 'cross-site' },
    );
    expect(crossSite.status).toBe(403);
    const bare = await browser.post('/dashboard/signup', { email: 'a@example.com', password: PASSWORD }, {});
    expect(bare.status).toBe(403);
    expect(await dashboard.dashboardStore.findAccountByEmail('a@example.com')).toBeNull();
    const sameOrigin = await browser.post(
      '/dashboard/signup',
      { email: 'a@example.com', password: PASSWORD },
      { 'Sec-Fetch-Site': 'same-origin' },
    );
    expect(sameOrigin.status).toBe(303);
  });
});

describe('the limits of sign-in', () => {
  it('count in the Tidings instance’s limiter, so that instances sharing one (Redis) share them', async () => {
    const limiter = createMemoryLimiter();
    const first = createTestDashboard({}, { limiter });
    const second = createTestDashboard({}, { limiter });
    try {
      for (let i = 0; i < 10; i++) {
        const wrong = await first
          .browser()
          .post('/dashboard/login', { email: 'a@example.com', password: 'wrong wrong' });
        expect(wrong.status).toBe(401);
      }
      const refused = await second.browser().post('/dashboard/login', { email: 'a@example.com', password: PASSWORD });
      expect(refused.status).toBe(429);
      expect(first.tidings.admin.settings.limiter).toBe(limiter);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
