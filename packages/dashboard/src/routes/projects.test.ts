import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDashboard, ORIGIN, signUpVerified } from '../../../../test/support/dashboard-app.js';

let dashboard: ReturnType<typeof createTestDashboard>;
beforeEach(() => {
  dashboard = createTestDashboard();
});
afterEach(async () => {
  await dashboard.close();
});

async function createProject(browser: Awaited<ReturnType<typeof signUpVerified>>, name = 'Shop') {
  const response = await browser.post('/dashboard/projects', { name });
  expect(response.status).toBe(303);
  return (response.headers.get('Location') ?? '').split('/').pop()!;
}

const KEY_PATTERN = /sk_(live|test)_[A-Za-z0-9]{32}/g;

describe('projects', () => {
  it('refuses a project to an unverified account with EMAIL_NOT_VERIFIED, even by a direct POST', async () => {
    const browser = dashboard.browser();
    await browser.post('/dashboard/signup', { email: 'a@example.com', password: 'correct horse battery' });
    // Unverified, signed in with the password.
    await browser.post('/dashboard/login', { email: 'a@example.com', password: 'correct horse battery' });
    const response = await browser.post('/dashboard/projects', { name: 'Shop' });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('Verify your email address with the code sent to it');
  });

  it('creates, lists (n/10) and renames projects; the 11th is refused with PROJECT_LIMIT_REACHED', async () => {
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    expect(id).toMatch(/^proj_/);
    for (let i = 2; i <= 10; i++) await createProject(browser, `P${i}`);
    const list = await (await browser.get('/dashboard')).text();
    expect(list).toContain('10/10 projects');
    expect(list).not.toContain('action="/dashboard/projects"');
    const eleventh = await browser.post('/dashboard/projects', { name: 'One too many' });
    expect(eleventh.status).toBe(409);
    expect(await eleventh.text()).toContain(
      'An account holds at most 10 projects. Delete a project you no longer use, or ask an operator',
    );
    const empty = await browser.post(`/dashboard/projects/${id}/rename`, { name: '   ' });
    expect(empty.status).toBe(400);
    expect((await browser.post(`/dashboard/projects/${id}/rename`, { name: 'Shop (EU)' })).status).toBe(303);
    expect((await dashboard.store.getProject(id))?.name).toBe('Shop (EU)');
    const audit = await (await browser.get(`/dashboard/projects/${id}/audit`)).text();
    expect(audit).toContain('Project renamed');
    expect(audit).toContain('Shop → Shop (EU)');
    expect(audit).toContain('Project created');
    expect(audit).toContain('ada@example.com');
    // The breadcrumb names the project, links to it, and says which page of it this is.
    const crumbs = /<nav class="crumbs" aria-label="Breadcrumb">(.*?)<\/nav>/s.exec(audit)?.[1] ?? '';
    expect(crumbs).toContain(`href="/dashboard/projects/${id}"`);
    expect(crumbs).toContain('Shop (EU)');
    expect(crumbs).toContain('Audit log');
  });

  it("answers 404 for another account's project, as for an unknown one", async () => {
    const owner = await signUpVerified(dashboard);
    const id = await createProject(owner);
    const other = await signUpVerified(dashboard, 'eve@example.com');
    for (const path of ['', '/usage', '/log', '/audit', '/settings']) {
      expect((await other.get(`/dashboard/projects/${id}${path}`)).status).toBe(404);
    }
    expect((await other.post(`/dashboard/projects/${id}/keys`, { name: 'x', mode: 'live' })).status).toBe(404);
    expect((await other.get('/dashboard/projects/proj_unknown')).status).toBe(404);
    expect(await dashboard.store.listApiKeys(id)).toHaveLength(0);
  });
});

describe('API keys', () => {
  it('shows a new key in the answer to its POST only, and the key works against the API', async () => {
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const created = await browser.post(`/dashboard/projects/${id}/keys`, { name: 'server', mode: 'live' });
    expect(created.status).toBe(200);
    expect(created.headers.get('Cache-Control')).toBe('no-store');
    expect(created.headers.get('Location')).toBeNull();
    const html = await created.text();
    const keys = html.match(KEY_PATTERN) ?? [];
    expect(keys).toHaveLength(1);
    const key = keys[0]!;
    expect(html).toContain('it will not be shown again');
    expect(html).toContain('$TIDINGS_API_KEY');
    expect(html).toContain(`data-replace-url="/dashboard/projects/${id}"`);
    for (const header of created.headers.values()) expect(header).not.toContain(key);

    const list = await (await browser.get(`/dashboard/projects/${id}`)).text();
    expect(list).not.toContain(key);
    expect(list).toContain(key.slice(0, 12));
    expect(list).toContain('1/10 active keys');

    const api = await dashboard.app.request(`${ORIGIN}/v1/notifications/ntf_00000000000000000000000000`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(api.status).toBe(404);
    const row =
      /<tr data-key-id="[^"]+">.*?<\/tr>/s.exec(await (await browser.get(`/dashboard/projects/${id}`)).text())?.[0] ??
      '';
    expect(row).toContain('<td class="last-used" data-label="Last used"><time');
    const audit = await (await browser.get(`/dashboard/projects/${id}/audit`)).text();
    expect(audit).toContain('Key created');
    expect(audit).not.toContain(key);
  });

  it('validates the key form and refuses the 11th active key with KEY_LIMIT_REACHED', async () => {
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const bad = await browser.post(`/dashboard/projects/${id}/keys`, { name: 'x', mode: 'staging' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Choose live or test');
    // A key has a name: an empty one is refused, not stored as "unnamed".
    const unnamed = await browser.post(`/dashboard/projects/${id}/keys`, { name: '  ', mode: 'live' });
    expect(unnamed.status).toBe(400);
    expect(await unnamed.text()).toContain('Name the key');
    expect(await dashboard.store.listApiKeys(id)).toHaveLength(0);
    for (let i = 0; i < 10; i++) {
      expect((await browser.post(`/dashboard/projects/${id}/keys`, { name: `k${i}`, mode: 'test' })).status).toBe(200);
    }
    const eleventh = await browser.post(`/dashboard/projects/${id}/keys`, { name: 'k11', mode: 'test' });
    expect(eleventh.status).toBe(409);
    const html = await eleventh.text();
    expect(html).toContain('Revoke a key you no longer use, then create the new one.');
    expect(html.match(KEY_PATTERN)).toBeNull();
    expect(await dashboard.store.listApiKeys(id)).toHaveLength(10);
    // At the limit, the page offers a notice instead of the form.
    const page = await (await browser.get(`/dashboard/projects/${id}`)).text();
    expect(page).not.toContain('name="name"');
    expect(page).toContain('This project has 10 of its 10 active keys');
  });

  it('revokes after a confirmation page; the next API request with the key gets 401', async () => {
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const html = await (await browser.post(`/dashboard/projects/${id}/keys`, { name: 'server', mode: 'live' })).text();
    const key = html.match(KEY_PATTERN)![0];
    const [record] = await dashboard.store.listApiKeys(id);
    const confirm = await (await browser.get(`/dashboard/projects/${id}/keys/${record!.id}/revoke`)).text();
    expect(confirm).toContain('takes effect at once');
    expect(confirm).toContain('cannot be undone');
    const revoked = await browser.post(`/dashboard/projects/${id}/keys/${record!.id}/revoke`);
    expect(revoked.status).toBe(303);
    const api = await dashboard.app.request(`${ORIGIN}/v1/notifications/ntf_00000000000000000000000000`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(api.status).toBe(401);
    const list = await (await browser.get(`/dashboard/projects/${id}?revoked=1`)).text();
    expect(list).toContain('0/10 active keys');
    expect(list).toContain('revoked');
    expect(await (await browser.get(`/dashboard/projects/${id}/audit`)).text()).toContain('Key revoked');
  });
});
