import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDashboard, ORIGIN, signUpVerified } from '../../../../test/support/dashboard-app.js';

let dashboard: ReturnType<typeof createTestDashboard>;
beforeEach(() => {
  dashboard = createTestDashboard();
});
afterEach(async () => {
  await dashboard.close();
});

async function projectOf(browser: Awaited<ReturnType<typeof signUpVerified>>) {
  const response = await browser.post('/dashboard/projects', { name: 'Shop' });
  return (response.headers.get('Location') ?? '').split('/').pop()!;
}

describe('operators', () => {
  it('hides the operator page and its actions from customers', async () => {
    const customer = await signUpVerified(dashboard);
    const id = await projectOf(customer);
    expect((await customer.get('/dashboard/operator')).status).toBe(404);
    expect((await customer.post(`/dashboard/operator/projects/${id}/suspend`)).status).toBe(404);
    expect((await dashboard.store.getProject(id))?.suspended).toBe(false);
  });

  it('suspends a project (its API requests refused at once), resumes it, and verifies accounts', async () => {
    const customer = await signUpVerified(dashboard);
    const id = await projectOf(customer);
    const key = await dashboard.tidings.admin.createKey({ projectId: id, mode: 'test' });
    const operator = await signUpVerified(dashboard, 'op@example.com');
    const found = await dashboard.dashboardStore.findAccountByEmail('op@example.com');
    await dashboard.dashboardStore.setAccountOperator({ id: found!.account.id, operator: true });
    const page = await (await operator.get('/dashboard/operator')).text();
    expect(page).toContain('ada@example.com');
    expect(page).toContain(id);

    expect((await operator.post(`/dashboard/operator/projects/${id}/suspend`)).status).toBe(303);
    const read = () =>
      dashboard.app.request(`${ORIGIN}/v1/notifications/ntf_00000000000000000000000000`, {
        headers: { Authorization: `Bearer ${key.key}` },
      });
    const refused = await read();
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe('PROJECT_SUSPENDED');
    const shown = await (await customer.get(`/dashboard/projects/${id}`)).text();
    expect(shown).toContain('This project is suspended');
    const noKey = await customer.post(`/dashboard/projects/${id}/keys`, { name: 'x', mode: 'test' });
    expect(noKey.status).toBe(403);

    expect((await operator.post(`/dashboard/operator/projects/${id}/resume`)).status).toBe(303);
    expect((await read()).status).toBe(404);
    const audit = await (await customer.get(`/dashboard/projects/${id}/audit`)).text();
    expect(audit).toContain('Project suspended');
    expect(audit).toContain('Project resumed');
    expect(audit).toContain('op@example.com');

    const unverified = await dashboard.tidings.admin.createAccount({ email: 'new@example.com' });
    expect((await operator.post(`/dashboard/operator/accounts/${unverified.id}/verify`)).status).toBe(303);
    expect((await dashboard.store.getAccount(unverified.id))?.verified).toBe(true);
  });
});

describe('the live view', () => {
  it('streams the newest sends as Server-Sent Events, then says it is ready', async () => {
    const browser = await signUpVerified(dashboard);
    const id = await projectOf(browser);
    const page = await browser.get(`/dashboard/projects/${id}/live`);
    expect(await page.text()).toContain(`data-stream="/dashboard/projects/${id}/live/stream"`);
    const abort = new AbortController();
    const cookie = browser.cookie();
    const stream = await dashboard.app.request(`${ORIGIN}/dashboard/projects/${id}/live/stream`, {
      headers: { Cookie: cookie },
      signal: abort.signal,
    });
    expect(stream.headers.get('Content-Type')).toContain('text/event-stream');
    const reader = stream.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain('event: ready');
    abort.abort();
    await reader.cancel();
    const other = await signUpVerified(dashboard, 'eve@example.com');
    expect((await other.get(`/dashboard/projects/${id}/live/stream`)).status).toBe(404);
  });
});
