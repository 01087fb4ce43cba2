import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDashboard, ORIGIN } from '../../../../test/support/dashboard-app.js';
import { challengeOf, createJarBrowser, softAuthenticator } from '../../../../test/support/soft-authenticator.js';

/**
 * Post/redirect/get: every form of the dashboard that succeeds answers 303 to a page, so that
 * reload and Back never send it again. The table names every POST route the app registers, so a
 * new route fails the first test until it is given its success here.
 */

let dashboard: ReturnType<typeof createTestDashboard>;
beforeEach(() => {
  dashboard = createTestDashboard();
  lastPoster = null;
});
afterEach(async () => {
  await dashboard.close();
});

const PASSWORD = 'correct horse battery';
type Browser = ReturnType<typeof createJarBrowser>;

/** The browser that sent the latest form: the one that follows the answer's redirect. */
let lastPoster: Browser | null = null;

/** A browser that keeps every cookie, and says when it sends a form. */
function jar(): Browser {
  const browser = createJarBrowser(dashboard.app);
  return {
    ...browser,
    post: (path, form) => {
      lastPoster = browser;
      return browser.post(path, form);
    },
  };
}

/** Signs `email` up and in with the mailed code, in a browser that keeps every cookie. */
async function signedIn(email = 'ada@example.com'): Promise<Browser> {
  const browser = jar();
  expect((await browser.post('/dashboard/signup', { email, password: PASSWORD })).status).toBe(303);
  const code = dashboard.mailer.lastCode(email) ?? '';
  expect((await browser.post('/dashboard/signup/verify', { email, code })).status).toBe(303);
  return browser;
}

async function operator(): Promise<Browser> {
  const browser = await signedIn('op@example.com');
  const found = await dashboard.dashboardStore.findAccountByEmail('op@example.com');
  await dashboard.dashboardStore.setAccountOperator({ id: found!.account.id, operator: true });
  return browser;
}

async function project(browser: Browser): Promise<string> {
  const created = await browser.post('/dashboard/projects', { name: 'Shop' });
  return (created.headers.get('Location') ?? '').split('/').pop()!;
}

/** A project of ada's with one endpoint; `path` is the endpoint's page. */
async function endpoint() {
  const browser = await signedIn();
  const projectId = await project(browser);
  const created = await dashboard.tidings.admin.createWebhookEndpoint({
    projectId,
    url: 'https://example.com/hooks',
    events: ['*'],
    description: null,
  });
  return { browser, projectId, id: created.id, path: `/dashboard/projects/${projectId}/webhooks/${created.id}` };
}

/** Ada with a passkey (and its recovery codes), signed out. */
async function withPasskey() {
  const browser = await signedIn();
  const authenticator = softAuthenticator();
  const page = await (await browser.get('/dashboard/account/security')).text();
  const added = await browser.post('/dashboard/account/security/passkeys', {
    name: 'Laptop',
    response: authenticator.register(challengeOf(page)),
  });
  const codes = [...(await added.text()).matchAll(/<code data-secret="true">([A-Z0-9-]+)<\/code>/g)].map((m) => m[1]!);
  await browser.post('/dashboard/logout', {});
  return { browser, authenticator, codes };
}

async function passwordStep(browser: Browser) {
  expect((await browser.post('/dashboard/login', { email: 'ada@example.com', password: PASSWORD })).status).toBe(303);
}

/**
 * What a POST route answers when it succeeds: 303 to a page, or, for the few that show a secret
 * once (a key, a signing secret, recovery codes), that page itself, never kept in a URL; its
 * script then replaces the history entry with the page named in `data-replace-url`.
 */
type Outcome =
  | { answer: 'see-other'; succeed: () => Promise<Response> }
  | { answer: 'shown-once'; succeed: () => Promise<Response> }
  | { answer: 'json'; succeed: () => Promise<Response> };

const ROUTES: Record<string, Outcome> = {
  '/dashboard/signup': {
    answer: 'see-other',
    succeed: () => jar().post('/dashboard/signup', { email: 'b@example.com', password: PASSWORD }),
  },
  '/dashboard/signup/verify': {
    answer: 'see-other',
    async succeed() {
      const browser = jar();
      await browser.post('/dashboard/signup', { email: 'b@example.com', password: PASSWORD });
      const code = dashboard.mailer.lastCode('b@example.com') ?? '';
      return browser.post('/dashboard/signup/verify', { email: 'b@example.com', code });
    },
  },
  '/dashboard/signup/verify/resend': {
    answer: 'see-other',
    succeed: () => jar().post('/dashboard/signup/verify/resend', { email: 'b@example.com' }),
  },
  '/dashboard/login': {
    answer: 'see-other',
    async succeed() {
      await signedIn();
      return jar().post('/dashboard/login', { email: 'ada@example.com', password: PASSWORD });
    },
  },
  '/dashboard/login/code/send': {
    answer: 'see-other',
    succeed: () => jar().post('/dashboard/login/code/send', { email: 'ada@example.com' }),
  },
  '/dashboard/login/code': {
    answer: 'see-other',
    async succeed() {
      await signedIn();
      const browser = jar();
      await browser.post('/dashboard/login/code/send', { email: 'ada@example.com' });
      const code = dashboard.mailer.lastCode('ada@example.com') ?? '';
      return browser.post('/dashboard/login/code', { email: 'ada@example.com', code });
    },
  },
  '/dashboard/logout': { answer: 'see-other', succeed: async () => (await signedIn()).post('/dashboard/logout', {}) },
  '/dashboard/verify': {
    answer: 'see-other',
    async succeed() {
      const browser = jar();
      await browser.post('/dashboard/signup', { email: 'b@example.com', password: PASSWORD });
      await browser.post('/dashboard/login', { email: 'b@example.com', password: PASSWORD });
      return browser.post('/dashboard/verify', { code: dashboard.mailer.lastCode('b@example.com') ?? '' });
    },
  },
  '/dashboard/verify/resend': {
    answer: 'see-other',
    async succeed() {
      const browser = jar();
      await browser.post('/dashboard/signup', { email: 'b@example.com', password: PASSWORD });
      await browser.post('/dashboard/login', { email: 'b@example.com', password: PASSWORD });
      return browser.post('/dashboard/verify/resend', {});
    },
  },
  '/dashboard/reset': {
    answer: 'see-other',
    succeed: () => jar().post('/dashboard/reset', { email: 'ada@example.com' }),
  },
  '/dashboard/reset/confirm': {
    answer: 'see-other',
    async succeed() {
      await signedIn();
      const browser = jar();
      await browser.post('/dashboard/reset', { email: 'ada@example.com' });
      const code = dashboard.mailer.lastCode('ada@example.com') ?? '';
      return browser.post('/dashboard/reset/confirm', {
        email: 'ada@example.com',
        code,
        password: 'a brand new password',
      });
    },
  },
  '/dashboard/projects': {
    answer: 'see-other',
    succeed: async () => (await signedIn()).post('/dashboard/projects', { name: 'Shop' }),
  },
  '/dashboard/projects/:id/keys': {
    answer: 'shown-once',
    async succeed() {
      const browser = await signedIn();
      return browser.post(`/dashboard/projects/${await project(browser)}/keys`, { name: 'server', mode: 'live' });
    },
  },
  '/dashboard/projects/:id/keys/:keyId/revoke': {
    answer: 'see-other',
    async succeed() {
      const browser = await signedIn();
      const id = await project(browser);
      const key = await dashboard.tidings.admin.createKey({ projectId: id, mode: 'live', name: 'server' });
      return browser.post(`/dashboard/projects/${id}/keys/${key.id}/revoke`, {});
    },
  },
  '/dashboard/projects/:id/inbox-retention': {
    answer: 'see-other',
    async succeed() {
      const browser = await signedIn();
      return browser.post(`/dashboard/projects/${await project(browser)}/inbox-retention`, { days: '30' });
    },
  },
  '/dashboard/projects/:id/rename': {
    answer: 'see-other',
    async succeed() {
      const browser = await signedIn();
      return browser.post(`/dashboard/projects/${await project(browser)}/rename`, { name: 'Shop 2' });
    },
  },
  '/dashboard/projects/:id/delete': {
    answer: 'see-other',
    async succeed() {
      const browser = await signedIn();
      return browser.post(`/dashboard/projects/${await project(browser)}/delete`, { name: 'Shop' });
    },
  },
  '/dashboard/projects/:id/first-send/token': {
    answer: 'json',
    async succeed() {
      const browser = await signedIn();
      return browser.request(`/dashboard/projects/${await project(browser)}/first-send/token`, {
        method: 'POST',
        headers: { Origin: ORIGIN, 'Content-Type': 'application/json' },
        body: '{}',
      });
    },
  },
  '/dashboard/projects/:id/first-send/send': {
    answer: 'json',
    async succeed() {
      const browser = await signedIn();
      const id = await project(browser);
      const { key } = await dashboard.tidings.admin.createKey({ projectId: id, mode: 'live', name: 'server' });
      return browser.request(`/dashboard/projects/${id}/first-send/send`, {
        method: 'POST',
        headers: { Origin: ORIGIN, 'Content-Type': 'application/json' },
        body: JSON.stringify({ key }),
      });
    },
  },
  '/dashboard/projects/:id/webhooks': {
    answer: 'shown-once',
    async succeed() {
      const browser = await signedIn();
      return browser.post(`/dashboard/projects/${await project(browser)}/webhooks`, {
        url: 'https://example.com/hooks',
        events: '*',
      });
    },
  },
  '/dashboard/projects/:id/webhooks/:endpointId/edit': {
    answer: 'see-other',
    async succeed() {
      const { browser, path } = await endpoint();
      return browser.post(`${path}/edit`, { url: 'https://example.com/other', events: '*' });
    },
  },
  '/dashboard/projects/:id/webhooks/:endpointId/disable': {
    answer: 'see-other',
    succeed: async () => {
      const { browser, path } = await endpoint();
      return browser.post(`${path}/disable`, {});
    },
  },
  '/dashboard/projects/:id/webhooks/:endpointId/enable': {
    answer: 'see-other',
    async succeed() {
      const { browser, path } = await endpoint();
      await browser.post(`${path}/disable`, {});
      return browser.post(`${path}/enable`, {});
    },
  },
  '/dashboard/projects/:id/webhooks/:endpointId/roll': {
    answer: 'shown-once',
    async succeed() {
      const { browser, path } = await endpoint();
      return browser.post(`${path}/roll`, { grace_hours: '24' });
    },
  },
  '/dashboard/projects/:id/webhooks/:endpointId/delete': {
    answer: 'see-other',
    async succeed() {
      const { browser, path } = await endpoint();
      return browser.post(`${path}/delete`, {});
    },
  },
  '/dashboard/projects/:id/webhooks/:endpointId/test': {
    answer: 'see-other',
    async succeed() {
      const { browser, path } = await endpoint();
      return browser.post(`${path}/test`, {});
    },
  },
  '/dashboard/projects/:id/webhooks/:endpointId/replay': {
    answer: 'see-other',
    async succeed() {
      const { browser, path } = await endpoint();
      return browser.post(`${path}/replay`, { since: '2026-01-01T00:00' });
    },
  },
  '/dashboard/projects/:id/webhooks/:endpointId/messages/:messageId/resend': {
    answer: 'see-other',
    async succeed() {
      const { browser, path, id } = await endpoint();
      await browser.post(`${path}/test`, {});
      const [message] = await dashboard.tidings.admin.listWebhookMessages(id);
      return browser.post(`${path}/messages/${message!.id}/resend`, {});
    },
  },
  '/dashboard/operator/projects/:id/suspend': {
    answer: 'see-other',
    async succeed() {
      const id = await project(await signedIn());
      return (await operator()).post(`/dashboard/operator/projects/${id}/suspend`, { reason: 'Abuse report' });
    },
  },
  '/dashboard/operator/projects/:id/resume': {
    answer: 'see-other',
    async succeed() {
      const id = await project(await signedIn());
      const browser = await operator();
      await browser.post(`/dashboard/operator/projects/${id}/suspend`, { reason: 'Abuse report' });
      return browser.post(`/dashboard/operator/projects/${id}/resume`, { reason: 'Resolved' });
    },
  },
  '/dashboard/operator/accounts/:id/verify': {
    answer: 'see-other',
    async succeed() {
      const account = await dashboard.tidings.admin.createAccount({ email: 'b@example.com' });
      return (await operator()).post(`/dashboard/operator/accounts/${account.id}/verify`, {});
    },
  },
  '/dashboard/operator/invitations': {
    answer: 'see-other',
    succeed: async () => (await operator()).post('/dashboard/operator/invitations', { email: 'b@example.com' }),
  },
  '/dashboard/operator/invitations/:email/revoke': {
    answer: 'see-other',
    async succeed() {
      const browser = await operator();
      await browser.post('/dashboard/operator/invitations', { email: 'b@example.com' });
      return browser.post('/dashboard/operator/invitations/b%40example.com/revoke', {});
    },
  },
  '/dashboard/account/password': {
    answer: 'see-other',
    async succeed() {
      const browser = await signedIn();
      return browser.post('/dashboard/account/password', {
        current_password: PASSWORD,
        password: 'a brand new password',
      });
    },
  },
  '/dashboard/account/sessions/revoke-others': {
    answer: 'see-other',
    succeed: async () => (await signedIn()).post('/dashboard/account/sessions/revoke-others', {}),
  },
  '/dashboard/account/sessions/:ref/revoke': {
    answer: 'see-other',
    async succeed() {
      const browser = await signedIn();
      await jar().post('/dashboard/login', { email: 'ada@example.com', password: PASSWORD });
      const page = await (await browser.get('/dashboard/account/sessions')).text();
      const other = /<li data-session="other">[\s\S]*?sessions\/([0-9a-f]{16})\/revoke/.exec(page)?.[1] ?? '';
      return browser.post(`/dashboard/account/sessions/${other}/revoke`, {});
    },
  },
  '/dashboard/account/email': {
    answer: 'see-other',
    async succeed() {
      const browser = await signedIn();
      return browser.post('/dashboard/account/email', { email: 'ada@new.example', current_password: PASSWORD });
    },
  },
  '/dashboard/account/email/confirm': {
    answer: 'see-other',
    async succeed() {
      const browser = await signedIn();
      await browser.post('/dashboard/account/email', { email: 'ada@new.example', current_password: PASSWORD });
      const code = dashboard.mailer.lastCode('ada@new.example') ?? '';
      return browser.post('/dashboard/account/email/confirm', { email: 'ada@new.example', code });
    },
  },
  '/dashboard/account/delete': {
    answer: 'see-other',
    async succeed() {
      const browser = await signedIn();
      return browser.post('/dashboard/account/delete', {
        confirm_email: 'ada@example.com',
        current_password: PASSWORD,
      });
    },
  },
  // The first passkey shows the recovery codes once; a second one is a plain change.
  '/dashboard/account/security/passkeys': {
    answer: 'see-other',
    async succeed() {
      const { browser, codes } = await withPasskey();
      await passwordStep(browser);
      await browser.post('/dashboard/login/second-factor/recovery', { code: codes[0]! });
      const page = await (await browser.get('/dashboard/account/security')).text();
      return browser.post('/dashboard/account/security/passkeys', {
        name: 'Phone',
        response: softAuthenticator().register(challengeOf(page)),
      });
    },
  },
  '/dashboard/account/security/passkeys/remove': {
    answer: 'see-other',
    async succeed() {
      const { browser, authenticator, codes } = await withPasskey();
      await passwordStep(browser);
      await browser.post('/dashboard/login/second-factor/recovery', { code: codes[0]! });
      return browser.post('/dashboard/account/security/passkeys/remove', {
        credential: authenticator.id,
        password: PASSWORD,
      });
    },
  },
  '/dashboard/account/security/recovery-codes': {
    answer: 'shown-once',
    async succeed() {
      const { browser, codes } = await withPasskey();
      await passwordStep(browser);
      await browser.post('/dashboard/login/second-factor/recovery', { code: codes[0]! });
      return browser.post('/dashboard/account/security/recovery-codes', { password: PASSWORD });
    },
  },
  '/dashboard/login/second-factor/passkey': {
    answer: 'see-other',
    async succeed() {
      const { browser, authenticator } = await withPasskey();
      await passwordStep(browser);
      const page = await (await browser.get('/dashboard/login/second-factor')).text();
      return browser.post('/dashboard/login/second-factor/passkey', {
        response: authenticator.assert(challengeOf(page)),
      });
    },
  },
  '/dashboard/login/second-factor/recovery': {
    answer: 'see-other',
    async succeed() {
      const { browser, codes } = await withPasskey();
      await passwordStep(browser);
      return browser.post('/dashboard/login/second-factor/recovery', { code: codes[0]! });
    },
  },
};

describe('post/redirect/get', () => {
  it('has a success in its table for every POST route the dashboard registers', () => {
    const registered = dashboard.app.routes
      .filter((route) => route.method === 'POST' && route.path.startsWith('/dashboard/'))
      .map((route) => route.path);
    expect(registered.length).toBeGreaterThan(30);
    expect([...new Set(registered)].sort()).toEqual(Object.keys(ROUTES).sort());
  });

  for (const [path, outcome] of Object.entries(ROUTES)) {
    it(`${path} answers its success with ${outcome.answer}`, async () => {
      const response = await outcome.succeed();
      const body = await response.text();
      if (outcome.answer === 'see-other') {
        expect(response.status, body).toBe(303);
        const location = response.headers.get('Location') ?? '';
        expect(location).toMatch(/^\/dashboard(\/|\?|$)/);
        // The page it leads to answers a GET, as reload and Back will ask for it.
        const page = await lastPoster!.get(location);
        expect(page.status, location).toBe(200);
      } else if (outcome.answer === 'shown-once') {
        expect(response.status, body).toBe(200);
        expect(response.headers.get('Cache-Control')).toBe('no-store');
        expect(body).toMatch(/data-replace-url="\/dashboard\/[^"]+"/);
      } else {
        expect(response.headers.get('Content-Type'), body).toMatch(/json/);
      }
    });
  }
});
