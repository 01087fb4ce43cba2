import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDashboard, ORIGIN, signUpVerified } from '../../../../test/support/dashboard-app.js';

let dashboard: ReturnType<typeof createTestDashboard>;
beforeEach(() => {
  dashboard = createTestDashboard();
});
afterEach(async () => {
  await dashboard.close();
});

type Browser = Awaited<ReturnType<typeof signUpVerified>>;
const KEY_PATTERN = /sk_(live|test)_[A-Za-z0-9]{32}/;

async function createProject(browser: Browser, name = 'Shop'): Promise<string> {
  const response = await browser.post('/dashboard/projects', { name });
  expect(response.status).toBe(303);
  return (response.headers.get('Location') ?? '').split('/').pop()!;
}

async function createKey(browser: Browser, projectId: string, mode: 'live' | 'test' = 'live'): Promise<string> {
  const html = await (await browser.post(`/dashboard/projects/${projectId}/keys`, { name: 'server', mode })).text();
  return KEY_PATTERN.exec(html)![0];
}

/** A JSON POST as the first send's script makes it: the session cookie, this origin, JSON. */
function postJson(
  browser: Browser | null,
  path: string,
  body: unknown = {},
  headers: Record<string, string> = { Origin: ORIGIN, 'Content-Type': 'application/json' },
) {
  return dashboard.app.request(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: { ...headers, ...(browser?.cookie() ? { Cookie: browser.cookie() } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function accountIdOf(projectId: string): Promise<string> {
  return (await dashboard.tidings.admin.getProject(projectId)).account_id;
}

async function expectProblem(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('Content-Type')).toContain('application/problem+json');
  const problem = (await response.json()) as { code: string; status: number; detail: string };
  expect(problem).toMatchObject({ code, status });
  expect(problem.detail.length).toBeGreaterThan(0);
}

describe('the first send: the connect token', () => {
  it("mints a token for the signed-in account's own recipient of its own project, by POST, not cached", async () => {
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const response = await postJson(browser, `/dashboard/projects/${id}/first-send/token`);
    expect(response.status).toBe(200);
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    const body = (await response.json()) as { object: string; token: string; recipient: string };
    expect(body.object).toBe('connect_token');
    expect(body.token).toMatch(/^ct_[A-Za-z0-9]{32}$/);
    expect(body.recipient).toBe(`dashboard:${await accountIdOf(id)}`);
    // The token connects a browser of that recipient in that project.
    const connected = await dashboard.app.request(`${ORIGIN}/v1/connect/${body.token}`, { method: 'POST' });
    expect(connected.status).toBe(201);
    expect(await connected.json()).toMatchObject({ object: 'browser', recipient: body.recipient });
  });

  it('needs a session (401), this origin (403) and JSON (415), and answers only POST (405)', async () => {
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const path = `/dashboard/projects/${id}/first-send/token`;
    await expectProblem(await postJson(null, path), 401, 'UNAUTHORIZED');
    await expectProblem(
      await postJson(browser, path, {}, { Origin: 'https://evil.test', 'Content-Type': 'application/json' }),
      403,
      'FORBIDDEN',
    );
    await expectProblem(
      await postJson(browser, path, {}, { 'Sec-Fetch-Site': 'cross-site', 'Content-Type': 'application/json' }),
      403,
      'FORBIDDEN',
    );
    await expectProblem(await postJson(browser, path, {}, { 'Content-Type': 'application/json' }), 403, 'FORBIDDEN');
    await expectProblem(await postJson(browser, path, '', { Origin: ORIGIN }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    await expectProblem(await postJson(browser, path, '{nope'), 400, 'VALIDATION_FAILED');
    const get = await dashboard.app.request(`${ORIGIN}${path}`, { headers: { Cookie: browser.cookie() } });
    await expectProblem(get, 405, 'METHOD_NOT_ALLOWED');
    expect(get.headers.get('Allow')).toBe('POST');
    // The same request from the page itself passes.
    expect(
      (await postJson(browser, path, {}, { 'Sec-Fetch-Site': 'same-origin', 'Content-Type': 'application/json' }))
        .status,
    ).toBe(200);
  });

  it("never mints a token for another account's project: 404, as for an unknown one", async () => {
    const owner = await signUpVerified(dashboard);
    const id = await createProject(owner);
    const other = await signUpVerified(dashboard, 'eve@example.com');
    for (const project of [id, 'proj_unknown']) {
      const response = await postJson(other, `/dashboard/projects/${project}/first-send/token`);
      expect(await response.clone().text()).not.toMatch(/ct_[A-Za-z0-9]{32}/);
      await expectProblem(response, 404, 'NOT_FOUND');
    }
    // Nor a send with the owner's key through the other account's session.
    const key = await createKey(owner, id);
    await expectProblem(await postJson(other, `/dashboard/projects/${id}/first-send/send`, { key }), 404, 'NOT_FOUND');
  });

  it('refuses a suspended project with PROJECT_SUSPENDED', async () => {
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    await dashboard.tidings.admin.suspendProject(id);
    await expectProblem(
      await postJson(browser, `/dashboard/projects/${id}/first-send/token`),
      403,
      'PROJECT_SUSPENDED',
    );
  });
});

describe('the first send: the send', () => {
  it("sends through POST /v1/notifications with the given key, to the account's own recipient only", async () => {
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const key = await createKey(browser, id);
    const recipient = `dashboard:${await accountIdOf(id)}`;
    // No browser of the recipient yet: the public API's own 409, passed on.
    await expectProblem(
      await postJson(browser, `/dashboard/projects/${id}/first-send/send`, { key }),
      409,
      'NO_CONNECTED_BROWSER',
    );
    const { token } = (await (await postJson(browser, `/dashboard/projects/${id}/first-send/token`)).json()) as {
      token: string;
    };
    expect((await dashboard.app.request(`${ORIGIN}/v1/connect/${token}`, { method: 'POST' })).status).toBe(201);
    // A recipient in the body is not the page's to choose: the route sends to its own.
    const sent = await postJson(browser, `/dashboard/projects/${id}/first-send/send`, { key, recipient: 'user_42' });
    expect(sent.status).toBe(201);
    expect(sent.headers.get('Cache-Control')).toBe('no-store');
    const text = await sent.text();
    expect(text).not.toContain(key);
    const notification = JSON.parse(text) as { id: string; recipient: string; mode: string; attempts: unknown[] };
    expect(notification).toMatchObject({ recipient, mode: 'live' });
    expect(notification.attempts).toHaveLength(1);
    // It is the API's send: the log has it, and the key's use is recorded as any request's.
    expect((await dashboard.tidings.admin.getNotification(id, notification.id)).recipient).toBe(recipient);
    const [record] = await dashboard.tidings.admin.listKeys(id);
    expect(record?.last_used_at).not.toBeNull();
    // The project is no longer empty: its page keeps the panel, folded under its heading.
    const page = await (await browser.get(`/dashboard/projects/${id}`)).text();
    expect(page).toContain('id="first-send"');
    expect(page).toMatch(/<details data-first-send-details[^>]*>/);
    expect(page).not.toMatch(/<details data-first-send-details[^>]*open/);
  });

  it('sends the title and body the page edited, and passes on the API’s refusal of a bad one', async () => {
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const key = await createKey(browser, id);
    const { token } = (await (await postJson(browser, `/dashboard/projects/${id}/first-send/token`)).json()) as {
      token: string;
    };
    expect((await dashboard.app.request(`${ORIGIN}/v1/connect/${token}`, { method: 'POST' })).status).toBe(201);
    const path = `/dashboard/projects/${id}/first-send/send`;
    const sent = await postJson(browser, path, { key, title: 'Order shipped', body: 'It left the depot.' });
    expect(sent.status).toBe(201);
    expect(await sent.json()).toMatchObject({ title: 'Order shipped', body: 'It left the depot.' });
    // Validated as any send: an empty or too long title is the API's 400, with the field's path.
    for (const [body, field] of [
      [{ key, title: '' }, 'title'],
      [{ key, title: 'x'.repeat(201) }, 'title'],
      [{ key, body: 'x'.repeat(2001) }, 'body'],
      [{ key, title: 42 }, 'title'],
    ] as const) {
      const refused = await postJson(browser, path, body);
      await expectProblem(refused.clone(), 400, 'VALIDATION_FAILED');
      const errors = ((await refused.json()) as { errors: { path: string }[] }).errors;
      expect(errors.map((error) => error.path)).toContain(field);
    }
  });

  it('refuses a malformed key, a key of another project and a revoked key, in the contract format', async () => {
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const otherProject = await createProject(browser, 'Other');
    const otherKey = await createKey(browser, otherProject);
    const path = `/dashboard/projects/${id}/first-send/send`;
    for (const body of [{}, { key: 'sk_live_short' }, { key: 42 }, { key: otherKey }]) {
      const response = await postJson(browser, path, body);
      await expectProblem(response.clone(), 400, 'VALIDATION_FAILED');
      expect(((await response.json()) as { errors: { path: string }[] }).errors[0]?.path).toBe('key');
    }
    const key = await createKey(browser, id);
    const [record] = await dashboard.tidings.admin.listKeys(id);
    await dashboard.tidings.admin.revokeKey(record!.id);
    await expectProblem(await postJson(browser, path, { key }), 400, 'VALIDATION_FAILED');
    await expectProblem(await postJson(null, path, { key }), 401, 'UNAUTHORIZED');
  });
});

describe('the first send: the pages', () => {
  it('shows the panel on a new key’s page and on an empty project’s page, with a curl to the recipient', async () => {
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const recipient = `dashboard:${await accountIdOf(id)}`;
    const curl = `-d &#39;{&quot;recipient&quot;:&quot;${recipient}&quot;,&quot;title&quot;:&quot;Hello from Tidings&quot;}&#39;`;
    const empty = await (await browser.get(`/dashboard/projects/${id}`)).text();
    expect(empty).toContain('Send a test notification');
    expect(empty).toContain('Create a key above first');
    expect(empty).toContain('The live test needs JavaScript');
    expect(empty).toContain(curl);
    expect(empty).toContain('/dashboard/assets/tidings.global.js');

    const created = await (
      await browser.post(`/dashboard/projects/${id}/keys`, { name: 'server', mode: 'live' })
    ).text();
    expect(created).toContain('data-key-from="screen"');
    expect(created).toContain(curl);
    expect(created).toContain('$TIDINGS_API_KEY');
    expect(created.match(new RegExp(KEY_PATTERN, 'g'))).toHaveLength(1);

    const withKey = await (await browser.get(`/dashboard/projects/${id}`)).text();
    expect(withKey).toContain('id="first-send-key"');
    // Nothing sent yet: the panel is open, with the title and body to edit.
    expect(withKey).not.toContain('data-first-send-details');
    expect(withKey).toContain('value="Hello from Tidings"');
    expect(withKey).toContain('id="first-send-body"');
    expect(withKey).toContain('type="password"');
  });

  it('serves the browser SDK and the first send’s script from the dashboard itself', async () => {
    for (const asset of ['tidings.global.js', 'first-send.js']) {
      const response = await dashboard.browser().get(`/dashboard/assets/${asset}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('Content-Type')).toContain('text/javascript');
      expect((await response.text()).length).toBeGreaterThan(500);
    }
  });

  it('filters the live stream by recipient and refuses a malformed one', async () => {
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const bad = await browser.get(`/dashboard/projects/${id}/live/stream?recipient=${encodeURIComponent('no spaces')}`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('VALIDATION_FAILED');
  });
});

describe('the first send: behind a public URL', () => {
  it('connects and sends the curl to the public URL, which the CSP lets the page reach', async () => {
    await dashboard.close();
    dashboard = createTestDashboard({}, { publicUrl: 'https://tidings.example.com' });
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const response = await browser.get(`/dashboard/projects/${id}`);
    const csp = response.headers.get('Content-Security-Policy') ?? '';
    expect(csp).toContain("connect-src 'self' https://tidings.example.com");
    const html = await response.text();
    expect(html).toContain('data-api-url="https://tidings.example.com"');
    expect(html).toContain('curl -X POST https://tidings.example.com/v1/notifications');
  });
});
