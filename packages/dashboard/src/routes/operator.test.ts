import { generateSecretKey, newId } from '@tidings/core';
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

/** Signs up `email` and makes it an operator. */
async function operatorBrowser(email = 'op@example.com') {
  const operator = await signUpVerified(dashboard, email);
  const found = await dashboard.dashboardStore.findAccountByEmail(email);
  await dashboard.dashboardStore.setAccountOperator({ id: found!.account.id, operator: true });
  return operator;
}

/** The ids of the rows of a table of the operators' page, in order. */
function rowIds(html: string, attribute: 'data-project-id' | 'data-account-id'): string[] {
  return [...html.matchAll(new RegExp(`${attribute}="([^"]+)"`, 'g'))].map((match) => match[1]!);
}

/** Creates verified accounts with one project each, straight through the admin API. */
async function seedProjects(names: string[], email = (i: number) => `owner${i}@example.com`) {
  const ids: string[] = [];
  for (const [i, name] of names.entries()) {
    const account = await dashboard.tidings.admin.createAccount({ email: email(i), verified: true });
    ids.push((await dashboard.tidings.admin.createProject({ accountId: account.id, name })).id);
  }
  return ids;
}

describe('operators', () => {
  it('hides the operator page and its actions from customers', async () => {
    const customer = await signUpVerified(dashboard);
    const id = await projectOf(customer);
    expect((await customer.get('/dashboard/operator')).status).toBe(404);
    expect((await customer.get(`/dashboard/operator/projects/${id}/suspend`)).status).toBe(404);
    expect((await customer.post(`/dashboard/operator/projects/${id}/suspend`, { reason: 'x' })).status).toBe(404);
    expect((await dashboard.store.getProject(id))?.suspended).toBe(false);
  });

  it('suspends only with a reason, after a confirmation page; records it; shows it to the customer, escaped', async () => {
    const customer = await signUpVerified(dashboard);
    const id = await projectOf(customer);
    const key = await dashboard.tidings.admin.createKey({ projectId: id, mode: 'test' });
    const operator = await operatorBrowser();
    const page = await (await operator.get('/dashboard/operator')).text();
    expect(page).toContain('ada@example.com');
    expect(page).toContain(`href="/dashboard/operator/projects/${id}/suspend?back=%2Fdashboard%2Foperator"`);

    const confirm = await operator.get(`/dashboard/operator/projects/${id}/suspend`);
    expect(confirm.status).toBe(200);
    const form = await confirm.text();
    expect(form).toContain(`action="/dashboard/operator/projects/${id}/suspend"`);
    expect(form).toMatch(/<textarea[^>]*name="reason"[^>]*required/);

    const tooLong = 'x'.repeat(501);
    for (const reason of [undefined, '', '   \n ', tooLong]) {
      const refused = await operator.post(
        `/dashboard/operator/projects/${id}/suspend`,
        reason === undefined ? {} : { reason },
      );
      expect(refused.status).toBe(400);
      const text = await refused.text();
      expect(text).toContain('Check the fields marked below, then submit again.');
      expect(text).toContain(
        reason === tooLong
          ? 'This is 501 characters long: shorten it to 500 or fewer. Check the fields'
          : 'Give a reason',
      );
      expect(text).not.toContain('VALIDATION_FAILED');
      expect(text).toContain('aria-invalid="true"');
    }
    expect((await dashboard.store.getProject(id))?.suspended).toBe(false);
    expect(await dashboard.dashboardStore.listAuditEvents({ projectId: id, limit: 10 })).toEqual([
      expect.objectContaining({ action: 'project.created' }),
    ]);

    // A form from another origin is refused, and changes nothing.
    const forged = await operator.post(
      `/dashboard/operator/projects/${id}/suspend`,
      { reason: 'forged' },
      { Origin: 'http://evil.test' },
    );
    expect(forged.status).toBe(403);
    expect((await dashboard.store.getProject(id))?.suspended).toBe(false);

    const reason = 'Spam: <script>alert(1)</script> & 100% "reported"';
    dashboard.clock.advance(60_000);
    const done = await operator.post(`/dashboard/operator/projects/${id}/suspend`, {
      reason: `  ${reason}  `,
      back: '/dashboard/operator?q=ada',
    });
    expect(done.status).toBe(303);
    expect(done.headers.get('Location')).toBe('/dashboard/operator?q=ada&suspended=1');
    expect(await dashboard.store.getProject(id)).toMatchObject({
      suspended: true,
      suspendedReason: reason,
      suspendedBy: 'op@example.com',
    });
    const [entry] = await dashboard.dashboardStore.listAuditEvents({ projectId: id, limit: 1 });
    expect(entry).toMatchObject({
      action: 'project.suspended',
      source: 'dashboard',
      actorEmail: 'op@example.com',
      reason,
      ip: expect.any(String),
    });
    const read = () =>
      dashboard.app.request(`${ORIGIN}/v1/notifications/ntf_00000000000000000000000000`, {
        headers: { Authorization: `Bearer ${key.key}` },
      });
    const refused = await read();
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe('PROJECT_SUSPENDED');

    for (const path of [`/dashboard/projects/${id}`, `/dashboard/projects/${id}/usage`]) {
      const shown = await (await customer.get(path)).text();
      expect(shown).toContain('This project was suspended on <time datetime="2026-01-10T12:01:00.000Z">');
      expect(shown).toContain('Spam: &lt;script&gt;alert(1)&lt;/script&gt; &amp; 100% &quot;reported&quot;');
      expect(shown).not.toContain('<script>alert(1)');
    }
    const noKey = await customer.post(`/dashboard/projects/${id}/keys`, { name: 'x', mode: 'test' });
    expect(noKey.status).toBe(403);
    // A bad "back" leads nowhere else than the operators' page.
    for (const back of ['https://evil.test/', '/dashboard/operatorx', '/dashboard/operator?a=1\r\nSet-Cookie:x=1']) {
      const again = await operator.get(`/dashboard/operator/projects/${id}/suspend?back=${encodeURIComponent(back)}`);
      expect(again.status).toBe(303);
      expect(again.headers.get('Location')).toBe('/dashboard/operator');
    }

    expect((await operator.post(`/dashboard/operator/projects/${id}/resume`, { reason: '' })).status).toBe(400);
    expect((await dashboard.store.getProject(id))?.suspended).toBe(true);
    expect((await operator.get(`/dashboard/operator/projects/${id}/resume`)).status).toBe(200);
    const resumed = await operator.post(`/dashboard/operator/projects/${id}/resume`, { reason: 'Owner fixed it' });
    expect(resumed.status).toBe(303);
    expect(await dashboard.store.getProject(id)).toMatchObject({ suspended: false, suspendedReason: null });
    expect((await read()).status).toBe(404);
    const audit = await (await customer.get(`/dashboard/projects/${id}/audit`)).text();
    expect(audit).toContain('Project suspended');
    expect(audit).toContain('Project resumed');
    expect(audit).toContain('Owner fixed it');
    expect(audit).toContain('op@example.com');
    expect(await (await customer.get(`/dashboard/projects/${id}`)).text()).not.toContain('This project was suspended');
  });

  it('verifies accounts by hand, recorded in the audit log', async () => {
    const operator = await operatorBrowser();
    const unverified = await dashboard.tidings.admin.createAccount({ email: 'new@example.com' });
    expect((await operator.post(`/dashboard/operator/accounts/${unverified.id}/verify`)).status).toBe(303);
    expect((await dashboard.store.getAccount(unverified.id))?.verified).toBe(true);
    expect(await dashboard.dashboardStore.listAuditEvents({ actor: 'op@example.com', limit: 5 })).toEqual([
      expect.objectContaining({ action: 'account.verified', projectId: null, detail: expect.stringContaining('new@') }),
    ]);
  });

  it('searches accounts and projects, with % and _ matched literally and the text escaped', async () => {
    const operator = await operatorBrowser();
    const ids = await seedProjects(['100% off', '100 percent', 'snake_case', 'snakeXcase'], (i) =>
      i === 3 ? 'Under_Score@example.com' : `owner${i}@example.com`,
    );
    const search = async (q: string) => {
      const response = await operator.get(`/dashboard/operator?q=${encodeURIComponent(q)}`);
      expect(response.status).toBe(200);
      return response.text();
    };
    let html = await search('0%');
    expect(rowIds(html, 'data-project-id')).toEqual([ids[0]]);
    expect(html).toContain('value="0%"');
    html = await search('e_c');
    expect(rowIds(html, 'data-project-id')).toEqual([ids[2]]);
    html = await search('under_score');
    expect(rowIds(html, 'data-project-id')).toEqual([ids[3]]);
    expect(rowIds(html, 'data-account-id')).toHaveLength(1);
    html = await search('SNAKE');
    expect(rowIds(html, 'data-project-id').sort()).toEqual([ids[2]!, ids[3]!].sort());
    expect(rowIds(html, 'data-account-id')).toEqual([]);
    html = await search(ids[1]!.toUpperCase());
    expect(rowIds(html, 'data-project-id')).toEqual([ids[1]]);
    html = await search('"><b>x');
    expect(html).toContain('value="&quot;&gt;&lt;b&gt;x"');
    expect(html).toContain('No project matches.');
    const tooLong = await operator.get(`/dashboard/operator?q=${'x'.repeat(201)}`);
    expect(tooLong.status).toBe(400);
    const refused = await tooLong.text();
    expect(refused).toContain('The search text is too long, so nothing was searched. Shorten it, then search again.');
    expect(refused).toContain('This is 201 characters long: shorten it to 200 or fewer.');
    expect(refused).toContain(`value="${'x'.repeat(201)}"`);
    expect(refused).toContain('<p class="hint counter over" id="field-q-count">201 / 200: 1 too many</p>');
    expect(refused).not.toContain('VALIDATION_FAILED');
  });

  it('pages accounts and projects by 50, with Previous and Next links that keep the search', async () => {
    const operator = await operatorBrowser();
    const ids = await seedProjects(Array.from({ length: 51 }, (_, i) => `Shop ${i}`));
    await seedProjects(['Other'], () => 'other@example.com');

    const first = await (await operator.get('/dashboard/operator?q=shop')).text();
    const page1 = rowIds(first, 'data-project-id');
    expect(page1).toHaveLength(50);
    expect(first).toContain('href="/dashboard/operator?q=shop&amp;projects_page=2" rel="next"');
    expect(first).not.toContain('rel="prev"');
    expect(first).toContain('1–50 of 51');

    const second = await (await operator.get('/dashboard/operator?q=shop&projects_page=2')).text();
    const page2 = rowIds(second, 'data-project-id');
    expect(page2).toHaveLength(1);
    expect(new Set([...page1, ...page2])).toEqual(new Set(ids));
    expect(second).toContain('href="/dashboard/operator?q=shop" rel="prev"');
    expect(second).not.toContain('projects_page=3');
    expect(second).toContain('51–51 of 51');

    // Accounts: the 51 owners, the other one and the operator (53), 50 a page.
    const accounts1 = rowIds(first, 'data-account-id');
    expect(accounts1).toEqual([]);
    const all = await (await operator.get('/dashboard/operator')).text();
    expect(rowIds(all, 'data-account-id')).toHaveLength(50);
    expect(all).toContain('href="/dashboard/operator?accounts_page=2" rel="next"');
    const accounts2 = await (await operator.get('/dashboard/operator?accounts_page=2&projects_page=2')).text();
    expect(rowIds(accounts2, 'data-account-id')).toHaveLength(3);
    expect(rowIds(accounts2, 'data-project-id')).toHaveLength(2);
    expect(accounts2).toContain('href="/dashboard/operator?projects_page=2" rel="prev"');

    const beyond = await operator.get('/dashboard/operator?projects_page=3');
    expect(beyond.status).toBe(200);
    const beyondHtml = await beyond.text();
    expect(rowIds(beyondHtml, 'data-project-id')).toEqual([]);
    expect(beyondHtml).toContain('href="/dashboard/operator?projects_page=2" rel="prev"');
    for (const bad of ['0', 'x', '-1', '20001', '1.5']) {
      const refused = await operator.get(`/dashboard/operator?projects_page=${bad}`);
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain('VALIDATION_FAILED');
    }
  });
});

/** An account made in the store (as the CLI makes one), signed in with its password. */
async function signedInAs(email: string, operator: boolean) {
  const { hashPassword } = await import('../domain/passwords.js');
  await dashboard.dashboardStore.createAccountWithPassword({
    id: newId('acct', dashboard.clock.now()),
    email,
    passwordHash: await hashPassword('correct horse battery'),
    verified: true,
    operator,
    now: dashboard.clock.now(),
  });
  const browser = dashboard.browser();
  const login = await browser.post('/dashboard/login', { email, password: 'correct horse battery' });
  expect(login.status).toBe(303);
  return browser;
}

describe('the secrets at rest', () => {
  it('says on the operator page that secrets are stored unsealed without a secrets key, and nothing with one', async () => {
    const unsealed = await (await (await operatorBrowser()).get('/dashboard/operator')).text();
    expect(unsealed).toContain('Secrets are stored unsealed');
    await dashboard.close();
    dashboard = createTestDashboard({}, { secretKeys: [generateSecretKey()] });
    const sealed = await (await (await operatorBrowser()).get('/dashboard/operator')).text();
    expect(sealed).toContain('<h1>Operator</h1>');
    expect(sealed).not.toContain('Secrets are stored unsealed');
  });
});

describe('invitations', () => {
  it('lists pending invitations with who sent them, and a revoked one no longer signs anyone up', async () => {
    await dashboard.close();
    dashboard = createTestDashboard({ signup: 'invite' });
    // Invitation-only sign-up: the accounts are made as the CLI makes them, then sign in.
    const operator = await signedInAs('op@example.com', true);
    expect((await operator.post('/dashboard/operator/invitations', { email: 'New@Example.com' })).status).toBe(303);
    dashboard.clock.advance(1000);
    expect((await operator.post('/dashboard/operator/invitations', { email: 'keep@example.com' })).status).toBe(303);
    const code = dashboard.mailer.lastCode('new@example.com')!;
    expect(code).toMatch(/^\d{6}$/);
    const page = await (await operator.get('/dashboard/operator')).text();
    expect(page).toContain('Pending invitations (2)');
    expect(page).toMatch(
      /data-invitation="new@example.com"><td data-label="Email"><span class="clip" title="new@example.com">new@example.com<\/span><\/td><td data-label="Invited by"><span class="clip" title="op@example.com">op@example.com<\/span><\/td>/,
    );
    expect(page).toContain('href="/dashboard/operator/invitations/new%40example.com/revoke"');

    const confirm = await operator.get('/dashboard/operator/invitations/new%40example.com/revoke');
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toContain('Revoke the invitation of new@example.com?');
    const customer = await signedInAs('eve@example.com', false);
    expect((await customer.get('/dashboard/operator/invitations/new%40example.com/revoke')).status).toBe(404);
    expect((await customer.post('/dashboard/operator/invitations/new%40example.com/revoke')).status).toBe(404);

    dashboard.clock.advance(1000);
    const revoked = await operator.post('/dashboard/operator/invitations/new%40example.com/revoke');
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('Location')).toBe('/dashboard/operator?invitation_revoked=1');
    const after = await (await operator.get('/dashboard/operator?invitation_revoked=1')).text();
    expect(after).toContain('Pending invitations (1)');
    expect(after).not.toContain('data-invitation="new@example.com"');
    expect((await operator.post('/dashboard/operator/invitations/new%40example.com/revoke')).status).toBe(404);
    expect((await operator.get('/dashboard/operator/invitations/nobody%40example.com/revoke')).status).toBe(404);

    const signup = await dashboard
      .browser()
      .post('/dashboard/signup', { email: 'new@example.com', password: 'correct horse battery', code });
    expect(signup.status).toBe(400);
    expect(await signup.text()).toContain('This invitation code is not valid for this address');
    expect(await dashboard.dashboardStore.findAccountByEmail('new@example.com')).toBeNull();
    expect(
      (await dashboard.dashboardStore.listAuditEvents({ actor: 'op@example.com', limit: 10 })).map((e) => e.action),
    ).toEqual(['invitation.revoked', 'invitation.sent', 'invitation.sent']);

    const kept = await dashboard.browser().post('/dashboard/signup', {
      email: 'keep@example.com',
      password: 'correct horse battery',
      code: dashboard.mailer.lastCode('keep@example.com')!,
    });
    expect(kept.status).toBe(303);
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
