import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDashboard, ORIGIN, signUpVerified } from '../../../test/support/dashboard-app.js';
import { PURGE_INTERVAL_MS } from './app.js';

let dashboard: ReturnType<typeof createTestDashboard>;
beforeEach(() => {
  dashboard = createTestDashboard();
});
afterEach(async () => {
  await dashboard.close();
});

describe('pages', () => {
  it('sends every page with a strict CSP, no-store and the usual secure headers', async () => {
    const response = await dashboard.browser().get('/dashboard/login');
    expect(response.status).toBe(200);
    const csp = response.headers.get('Content-Security-Policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    expect(response.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(response.headers.get('X-Frame-Options')).toBe('SAMEORIGIN');
    const html = await response.text();
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('name="email"');
    expect(html).toContain('name="password"');
  });

  it('sends a form of an ended session to the sign-in page, which says why, then back to the form’s page', async () => {
    const browser = await signUpVerified(dashboard, 'ada@example.com');
    // Ninety days on, past any session's life: the cookie is still sent, and signs nobody in.
    dashboard.clock.advance(90 * 86_400_000);
    const page = '/dashboard/projects/proj_x/settings';
    const refused = await browser.post(
      '/dashboard/projects/proj_x/rename',
      { name: 'New' },
      { Origin: ORIGIN, Referer: `${ORIGIN}${page}` },
    );
    expect(refused.status).toBe(303);
    expect(refused.headers.get('Location')).toBe(`/dashboard/login?next=${encodeURIComponent(page)}&session=ended`);
    const login = await (await browser.get(refused.headers.get('Location')!)).text();
    expect(login).toContain('Your session has ended, so nothing was changed');
    expect(login).toContain(`name="next" value="${page}"`);
    // Another site's Referer is no page to go back to.
    const foreign = await browser.post(
      '/dashboard/projects/proj_x/rename',
      { name: 'New' },
      {
        Origin: ORIGIN,
        Referer: 'https://elsewhere.example/dashboard/projects/proj_x/settings',
      },
    );
    expect(foreign.headers.get('Location')).toBe('/dashboard/login?session=ended');
  });

  it('sends a signed-out visitor to the sign-in page, and after it to the page asked for', async () => {
    const response = await dashboard.browser().get('/dashboard/projects/proj_x/usage?days=7');
    expect(response.status).toBe(303);
    const next = '/dashboard/projects/proj_x/usage?days=7';
    expect(response.headers.get('Location')).toBe(`/dashboard/login?next=${encodeURIComponent(next)}`);
    expect((await dashboard.browser().get('/dashboard')).headers.get('Location')).toBe('/dashboard/login');

    await signUpVerified(dashboard, 'ada@example.com');
    const browser = dashboard.browser();
    const form = await (await browser.get(`/dashboard/login?next=${encodeURIComponent(next)}`)).text();
    expect(form).toContain(`name="next" value="${next.replace('&', '&amp;')}"`);
    const signedIn = await browser.post('/dashboard/login', {
      email: 'ada@example.com',
      password: 'correct horse battery',
      next,
    });
    expect(signedIn.headers.get('Location')).toBe(next);
    // Only a page of the dashboard: anything else leads home.
    for (const elsewhere of ['//evil.test/x', 'https://evil.test/', '/dashboard/\\evil.test', '/other']) {
      const other = await dashboard.browser().post('/dashboard/login', {
        email: 'ada@example.com',
        password: 'correct horse battery',
        next: elsewhere,
      });
      expect(other.headers.get('Location'), elsewhere).toBe('/dashboard');
    }
  });
});

describe('what expired', () => {
  it('is deleted while the dashboard serves, at most once per interval', async () => {
    const { dashboardStore, clock } = dashboard;
    const purges: ReturnType<typeof dashboardStore.purgeExpired>[] = [];
    const purge = dashboardStore.purgeExpired.bind(dashboardStore);
    dashboardStore.purgeExpired = (input) => {
      const purged = purge(input);
      purges.push(purged);
      return purged;
    };
    await signUpVerified(dashboard, 'ada@example.com');
    const first = purges.length;
    expect(first).toBe(1);
    // A session whose idle time ran out is gone from the store once a request comes after the interval.
    const ada = await dashboardStore.findAccountByEmail('ada@example.com');
    await dashboardStore.createSession({
      hash: 'expired-session-hash',
      accountId: ada!.account.id,
      now: clock.now(),
      idleExpiresAt: clock.now() + 1,
      absoluteExpiresAt: clock.now() + 2,
    });
    clock.advance(PURGE_INTERVAL_MS - 1);
    await dashboard.browser().get('/dashboard/login');
    expect(purges).toHaveLength(1);
    clock.advance(1);
    await dashboard.browser().get('/dashboard/login');
    expect(purges).toHaveLength(2);
    expect(await purges[1]).toMatchObject({ sessions: 1 });
  });
});
