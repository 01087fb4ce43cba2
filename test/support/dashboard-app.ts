import { createManualClock, createMemoryMailer, createTidings, silentLogger, type TidingsOptions } from '@tidings/core';
import { type DashboardOptions, tidingsDashboard } from '@tidings/dashboard';
import { createSqliteDashboardStore } from '@tidings/dashboard/sqlite';
import { tidingsHono } from '@tidings/hono';
import { createSqliteStore } from '@tidings/store-sqlite';
import { Hono } from 'hono';

/** The origin the tests' requests come from, as a browser on the dashboard's own page would send. */
export const ORIGIN = 'http://dash.test';

/**
 * A dashboard over an in-memory store, mounted as the standalone server mounts it. `tidings`
 * options (its public URL, proxy trust, limits) reach the dashboard through the instance.
 */
export function createTestDashboard(
  overrides: Partial<DashboardOptions> = {},
  tidingsOverrides: Partial<Omit<TidingsOptions, 'store'>> = {},
) {
  const store = createSqliteStore({ path: ':memory:' });
  const dashboardStore = createSqliteDashboardStore(store);
  const clock = createManualClock(Date.UTC(2026, 0, 10, 12));
  const tidings = createTidings({ store, clock, logger: silentLogger, sweepIntervalMs: 0, ...tidingsOverrides });
  const mailer = createMemoryMailer();
  const app = new Hono();
  app.route('/', tidingsDashboard({ tidings, store: dashboardStore, mailer, ...overrides }));
  app.route('/', tidingsHono(tidings));
  return {
    app,
    store,
    dashboardStore,
    tidings,
    mailer,
    clock,
    browser: () => createBrowser(app),
    async close() {
      await tidings.close();
      await store.close();
    },
  };
}

/** A browser stand-in: keeps the cookie, sends forms with this origin's Origin header. */
export function createBrowser(app: Hono) {
  let cookie = '';
  async function request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (cookie) headers.set('Cookie', cookie);
    const response = await app.request(`${ORIGIN}${path}`, { ...init, headers });
    const set = response.headers.get('Set-Cookie');
    if (set) {
      const [pair] = set.split(';');
      cookie = /=$/.test(pair ?? '') || /Max-Age=0/i.test(set) ? '' : (pair ?? '');
    }
    return response;
  }
  return {
    get: (path: string) => request(path),
    /** Posts a form; a field given a list is sent once per value, as checkboxes are. */
    post: (
      path: string,
      form: Record<string, string | string[]> = {},
      headers: Record<string, string> = { Origin: ORIGIN },
    ) =>
      request(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(
          Object.entries(form).flatMap(([name, value]) =>
            (Array.isArray(value) ? value : [value]).map((item) => [name, item]),
          ),
        ).toString(),
      }),
    cookie: () => cookie,
  };
}

/** Signs up and verifies with the code from the mailer; returns the browser, signed in. */
export async function signUpVerified(dashboard: ReturnType<typeof createTestDashboard>, email = 'ada@example.com') {
  const browser = dashboard.browser();
  const signup = await browser.post('/dashboard/signup', { email, password: 'correct horse battery' });
  if (signup.status !== 303) throw new Error(`sign-up answered ${signup.status}: ${await signup.text()}`);
  const code = dashboard.mailer.lastCode(email);
  const verified = await browser.post('/dashboard/signup/verify', { email, code: code ?? '' });
  if (verified.status !== 303) throw new Error(`verify answered ${verified.status}`);
  return browser;
}
