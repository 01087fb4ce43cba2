import { inbox, requestLog } from '@tidings/core';
import { webhooks } from '@tidings/core/node';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDashboard, signUpVerified } from '../../../../test/support/dashboard-app.js';

let dashboard: ReturnType<typeof createTestDashboard>;
afterEach(async () => {
  await dashboard?.close();
});

type Browser = Awaited<ReturnType<typeof signUpVerified>>;

const SECRET_PATTERN = /whsec_[A-Za-z0-9+/=]+/g;
const EVENTS = ['notification.attempt.updated', 'notification.completed'];

async function createProject(browser: Browser, name = 'Shop') {
  const response = await browser.post('/dashboard/projects', { name });
  expect(response.status).toBe(303);
  return (response.headers.get('Location') ?? '').split('/').pop()!;
}

/** Creates an endpoint by its form; answers the page that shows the secret, and the endpoint's id. */
async function createEndpoint(
  browser: Browser,
  projectId: string,
  form: Record<string, string | string[]> = { url: 'https://example.com/hooks', events: EVENTS },
) {
  const response = await browser.post(`/dashboard/projects/${projectId}/webhooks`, form);
  const html = await response.text();
  expect(response.status, html).toBe(200);
  const id = /data-replace-url="\/dashboard\/projects\/[^/]+\/webhooks\/(whe_[0-9a-z]+)"/.exec(html)?.[1] ?? '';
  expect(id).toMatch(/^whe_/);
  return { response, html, id };
}

/** Records a failed request of the message whose answer is hostile HTML; the message fails. */
async function recordHostileAttempt(messageId: string) {
  const recorded = await dashboard.store.recordWebhookAttempt({
    attempt: {
      messageId,
      attemptedAt: dashboard.clock.now(),
      statusCode: 500,
      latencyMs: 42,
      outcome: 'failed',
      responseExcerpt: '<script>alert(1)</script>',
      error: null,
    },
    status: 'failed',
    nextAttemptAt: null,
  });
  expect(recorded?.message.status).toBe('failed');
}

function auditLog(browser: Browser, projectId: string) {
  return browser.get(`/dashboard/projects/${projectId}/audit`).then((response) => response.text());
}

describe('webhook endpoints', () => {
  it('lists and creates endpoints; the secret is in the answer to the POST only, never again', async () => {
    dashboard = createTestDashboard();
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const empty = await (await browser.get(`/dashboard/projects/${id}/webhooks`)).text();
    expect(empty).toContain('No webhook endpoints yet.');
    expect(empty).toContain('0/10 endpoints');
    expect(empty).toContain(`href="/dashboard/projects/${id}/webhooks" aria-current="page"`);

    const {
      response,
      html,
      id: endpointId,
    } = await createEndpoint(browser, id, {
      url: 'https://example.com/hooks',
      description: 'order service',
      events: ['notification.completed', 'browser.connected'],
    });
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    const secrets = html.match(SECRET_PATTERN) ?? [];
    expect(secrets).toHaveLength(1);
    const secret = secrets[0]!;
    expect(html).toContain('it will not be shown again');
    for (const header of response.headers.values()) expect(header).not.toContain(secret);

    const stored = await dashboard.tidings.admin.getWebhookEndpoint(endpointId);
    expect(stored).toMatchObject({
      url: 'https://example.com/hooks',
      description: 'order service',
      events: ['notification.completed', 'browser.connected'],
      status: 'enabled',
    });
    const list = await (await browser.get(`/dashboard/projects/${id}/webhooks`)).text();
    expect(list).toContain('1/10 endpoints');
    expect(list).toContain('https://example.com/hooks');
    expect(list).toContain('order service');
    expect(list).toContain('browser.connected');
    const pages = [
      list,
      await (await browser.get(`/dashboard/projects/${id}/webhooks/${endpointId}`)).text(),
      await (await browser.get(`/dashboard/projects/${id}/webhooks/${endpointId}/edit`)).text(),
      await (await browser.get(`/dashboard/projects/${id}/webhooks/${endpointId}/roll`)).text(),
      await auditLog(browser, id),
    ];
    for (const page of pages) {
      expect(page).not.toContain(secret);
      expect(page.match(SECRET_PATTERN)).toBeNull();
    }
    const audit = pages[4]!;
    expect(audit).toContain('Webhook endpoint created');
    expect(audit).toContain(`https://example.com/hooks (${endpointId})`);
    expect(audit).toContain('ada@example.com');
  });

  it('shows the refusals in the form: missing fields, an http: URL, the 11th endpoint', async () => {
    dashboard = createTestDashboard();
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const blank = await browser.post(`/dashboard/projects/${id}/webhooks`, { url: ' ', description: 'x' });
    expect(blank.status).toBe(400);
    const blankHtml = await blank.text();
    expect(blankHtml).toContain('Enter the URL events are sent to');
    expect(blankHtml).toContain('Choose at least one event');
    expect(blankHtml).toContain('value="x"');

    const unknown = await browser.post(`/dashboard/projects/${id}/webhooks`, {
      url: 'https://example.com/hooks',
      events: ['notification.sent'],
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('Choose among the events listed');

    const http = await browser.post(`/dashboard/projects/${id}/webhooks`, {
      url: 'http://example.com/hooks',
      description: 'plain',
      events: ['browser.connected'],
    });
    expect(http.status).toBe(400);
    const httpHtml = await http.text();
    expect(httpHtml).toContain('Check the fields marked below, then submit again.');
    expect(httpHtml).toContain('must be an https: URL');
    expect(httpHtml).toContain('aria-invalid="true"');
    // What was typed stays in the form, the one event still checked.
    expect(httpHtml).toContain('value="http://example.com/hooks"');
    expect(httpHtml).toMatch(/value="browser\.connected" checked=""/);
    expect(httpHtml).not.toMatch(/value="notification\.completed" checked=""/);
    expect(await dashboard.tidings.admin.listWebhookEndpoints(id)).toHaveLength(0);

    for (let i = 0; i < 10; i++) {
      await createEndpoint(browser, id, { url: `https://example.com/hooks/${i}`, events: '*' });
    }
    const eleventh = await browser.post(`/dashboard/projects/${id}/webhooks`, {
      url: 'https://example.com/hooks/10',
      events: '*',
    });
    expect(eleventh.status).toBe(409);
    const html = await eleventh.text();
    expect(html).toContain('Delete an endpoint you no longer use, then add the new one.');
    expect(html.match(SECRET_PATTERN)).toBeNull();
    const page = await (await browser.get(`/dashboard/projects/${id}/webhooks`)).text();
    expect(page).toContain('10/10 endpoints');
    expect(page).toContain('This project has 10 of its 10 webhook endpoints');
    expect(page).not.toContain('name="url"');
  });

  it('takes an http: URL when the server allows http webhooks', async () => {
    dashboard = createTestDashboard(
      {},
      { features: [inbox(), requestLog(), webhooks({ allowHttp: true })], jobs: false },
    );
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const { id: endpointId } = await createEndpoint(browser, id, {
      url: 'http://127.0.0.1:9/hooks',
      events: 'browser.disconnected',
    });
    expect((await dashboard.tidings.admin.getWebhookEndpoint(endpointId)).url).toBe('http://127.0.0.1:9/hooks');
  });

  it('edits, disables and enables, rolls the secret (shown once) and deletes after a confirmation, each audited', async () => {
    dashboard = createTestDashboard();
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const { html: createdHtml, id: endpointId } = await createEndpoint(browser, id);
    const first = createdHtml.match(SECRET_PATTERN)![0];
    const path = `/dashboard/projects/${id}/webhooks/${endpointId}`;

    const refused = await browser.post(`${path}/edit`, { url: 'ftp://example.com', events: EVENTS });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('must be an https: URL');
    const edited = await browser.post(`${path}/edit`, {
      url: 'https://example.com/v2',
      description: 'v2',
      events: '*',
    });
    expect(edited.status).toBe(303);
    expect(edited.headers.get('Location')).toBe(`${path}?updated=1`);
    expect(await dashboard.tidings.admin.getWebhookEndpoint(endpointId)).toMatchObject({
      url: 'https://example.com/v2',
      description: 'v2',
      events: ['*'],
    });
    // An emptied description is removed, not kept.
    await browser.post(`${path}/edit`, { url: 'https://example.com/v2', description: '', events: '*' });
    expect((await dashboard.tidings.admin.getWebhookEndpoint(endpointId)).description).toBeNull();

    expect((await browser.post(`${path}/disable`)).status).toBe(303);
    expect((await dashboard.tidings.admin.getWebhookEndpoint(endpointId)).status).toBe('disabled');
    const disabledPage = await (await browser.get(`${path}?disabled=1`)).text();
    expect(disabledPage).toContain('The endpoint is disabled');
    expect(disabledPage).toContain(`action="${path}/enable"`);
    expect((await browser.post(`${path}/enable`)).status).toBe(303);
    expect((await dashboard.tidings.admin.getWebhookEndpoint(endpointId)).status).toBe('enabled');

    const badGrace = await browser.post(`${path}/roll`, { grace_hours: '200' });
    expect(badGrace.status).toBe(400);
    expect(await badGrace.text()).toContain('from 0 to 168');
    const rolled = await browser.post(`${path}/roll`, { grace_hours: '2' });
    expect(rolled.status).toBe(200);
    const rolledHtml = await rolled.text();
    const secrets = rolledHtml.match(SECRET_PATTERN) ?? [];
    expect(secrets).toHaveLength(1);
    expect(secrets[0]).not.toBe(first);
    expect(rolledHtml).toContain('signed with both secrets');
    const endpoint = await dashboard.tidings.admin.getWebhookEndpoint(endpointId);
    expect(Date.parse(endpoint.previous_secret_expires_at!)).toBe(dashboard.clock.now() + 2 * 3_600_000);
    const endpointPage = await (await browser.get(path)).text();
    expect(endpointPage).not.toContain(secrets[0]!);
    expect(endpointPage).toContain('signs too until');

    const confirm = await (await browser.get(`${path}/delete`)).text();
    expect(confirm).toContain('cannot be undone');
    const deleted = await browser.post(`${path}/delete`);
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get('Location')).toBe(`/dashboard/projects/${id}/webhooks?deleted=1`);
    expect(await dashboard.tidings.admin.listWebhookEndpoints(id)).toHaveLength(0);
    expect((await browser.get(path)).status).toBe(404);

    const audit = await auditLog(browser, id);
    for (const label of [
      'Webhook endpoint created',
      'Webhook endpoint updated',
      'Webhook endpoint disabled',
      'Webhook endpoint enabled',
      'Webhook secret rolled',
      'Webhook endpoint deleted',
    ]) {
      expect(audit).toContain(label);
    }
    expect(audit).not.toContain(first);
    expect(audit).not.toContain(secrets[0]!);
    const events = await dashboard.dashboardStore.listAuditEvents({ projectId: id, limit: 20 });
    // The manual clock stands still: the entries share one time, so their order is not checked.
    const actions = events.filter((event) => event.action.startsWith('webhook.')).map((event) => event.action);
    expect(actions.sort()).toEqual([
      'webhook.created',
      'webhook.deleted',
      'webhook.disabled',
      'webhook.enabled',
      'webhook.secret_rolled',
      'webhook.updated',
      'webhook.updated',
    ]);
    expect(events.every((event) => event.actorEmail === 'ada@example.com' && event.source === 'dashboard')).toBe(true);
  });

  it("answers 404 for another account's endpoints and changes nothing", async () => {
    dashboard = createTestDashboard();
    const owner = await signUpVerified(dashboard);
    const id = await createProject(owner);
    const { id: endpointId } = await createEndpoint(owner, id);
    const otherProject = await createProject(owner, 'Other');
    const path = `/dashboard/projects/${id}/webhooks/${endpointId}`;

    const eve = await signUpVerified(dashboard, 'eve@example.com');
    const eveProject = await createProject(eve, 'Eve');
    for (const page of ['', '/edit', '/roll', '/delete']) expect((await eve.get(`${path}${page}`)).status).toBe(404);
    expect((await eve.get(`/dashboard/projects/${id}/webhooks`)).status).toBe(404);
    // Through her own project, the endpoint of another is not found either.
    expect((await eve.get(`/dashboard/projects/${eveProject}/webhooks/${endpointId}`)).status).toBe(404);
    const posts: [string, Record<string, string | string[]>][] = [
      [`/dashboard/projects/${id}/webhooks`, { url: 'https://evil.test/', events: '*' }],
      [`${path}/edit`, { url: 'https://evil.test/', events: '*' }],
      [`${path}/disable`, {}],
      [`${path}/roll`, { grace_hours: '0' }],
      [`${path}/delete`, {}],
      [`/dashboard/projects/${eveProject}/webhooks/${endpointId}/delete`, {}],
    ];
    for (const [target, form] of posts) {
      const response = await eve.post(target, form);
      expect(response.status, target).toBe(404);
      expect((await response.text()).match(SECRET_PATTERN), target).toBeNull();
    }
    // The owner's other project does not reach it either.
    expect((await owner.get(`/dashboard/projects/${otherProject}/webhooks/${endpointId}`)).status).toBe(404);
    expect(await dashboard.tidings.admin.getWebhookEndpoint(endpointId)).toMatchObject({
      url: 'https://example.com/hooks',
      status: 'enabled',
    });
    expect(await dashboard.tidings.admin.listWebhookEndpoints(eveProject)).toHaveLength(0);
    // Signed out, every page leads to sign-in.
    const anonymous = dashboard.browser();
    const response = await anonymous.get(path);
    expect(response.status).toBe(303);
    expect(response.headers.get('Location')).toContain('/dashboard/login?next=');
    expect((await anonymous.post(`${path}/delete`)).status).toBe(303);
    expect(await dashboard.tidings.admin.listWebhookEndpoints(id)).toHaveLength(1);
  });

  it('refuses a form posted from another origin (CSRF) and changes nothing', async () => {
    dashboard = createTestDashboard();
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const { id: endpointId } = await createEndpoint(browser, id);
    const path = `/dashboard/projects/${id}/webhooks/${endpointId}`;
    for (const [target, form] of [
      [`/dashboard/projects/${id}/webhooks`, { url: 'https://evil.test/', events: '*' }],
      [`${path}/edit`, { url: 'https://evil.test/', events: '*' }],
      [`${path}/disable`, {}],
      [`${path}/roll`, { grace_hours: '0' }],
      [`${path}/delete`, {}],
    ] as const) {
      const response = await browser.post(target, form, { Origin: 'https://evil.test' });
      expect(response.status, target).toBe(403);
      const html = await response.text();
      expect(html).toContain('This form was not sent from this dashboard');
      expect(html.match(SECRET_PATTERN)).toBeNull();
    }
    const endpoints = await dashboard.tidings.admin.listWebhookEndpoints(id);
    expect(endpoints).toHaveLength(1);
    expect(endpoints[0]).toMatchObject({ url: 'https://example.com/hooks', status: 'enabled' });
  });

  it('shows each endpoint’s last 24 hours, and a failing badge while its latest request is refused', async () => {
    dashboard = createTestDashboard();
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const { id: endpointId } = await createEndpoint(browser, id);
    const list = `/dashboard/projects/${id}/webhooks`;
    expect(await (await browser.get(list)).text()).toContain('no requests');

    const record = async (status: 'delivered' | 'failed') => {
      const message = await dashboard.tidings.admin.sendTestWebhookEvent(endpointId);
      dashboard.clock.advance(1000);
      await dashboard.store.recordWebhookAttempt({
        attempt: {
          messageId: message.id,
          attemptedAt: dashboard.clock.now(),
          statusCode: status === 'delivered' ? 204 : 500,
          latencyMs: 12,
          outcome: status === 'delivered' ? 'succeeded' : 'failed',
          responseExcerpt: null,
          error: null,
        },
        status,
        nextAttemptAt: null,
      });
    };
    await record('delivered');
    await record('delivered');
    await record('failed');
    const listed = await (await browser.get(list)).text();
    expect(listed).toContain('66% in 24 h');
    expect(listed).toContain('>failing</span>');
    const page = await (await browser.get(`${list}/${endpointId}`)).text();
    expect(page).toContain('2 of 3 delivered (66%)');
    expect(page).toContain('given up');
    expect(page).toContain('>failing</span>');
    await record('delivered');
    const recovered = await (await browser.get(list)).text();
    expect(recovered).toContain('75% in 24 h');
    expect(recovered).not.toContain('>failing</span>');
    expect(recovered).toContain('<span class="badge ok">enabled</span>');
  });

  it('sends a test event of the type chosen: webhook.test, or a sample of an event type', async () => {
    dashboard = createTestDashboard();
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const { id: endpointId } = await createEndpoint(browser, id);
    const path = `/dashboard/projects/${id}/webhooks/${endpointId}`;
    const page = await (await browser.get(path)).text();
    expect(page).toContain('<option value="notification.completed">notification.completed (a sample)</option>');
    expect((await browser.post(`${path}/test`, { type: 'notification.completed' })).status).toBe(303);
    expect((await browser.post(`${path}/test`)).status).toBe(303);
    const sent = await dashboard.tidings.admin.listWebhookMessages(endpointId);
    expect(sent.map((message) => message.event_type).sort()).toEqual(['notification.completed', 'webhook.test']);
    expect((await browser.post(`${path}/test`, { type: 'notification.sent' })).status).toBe(400);
  });

  it('refuses a new endpoint, a test event, a replay and a resend to a suspended project', async () => {
    dashboard = createTestDashboard();
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const { id: endpointId } = await createEndpoint(browser, id);
    const message = await dashboard.tidings.admin.sendTestWebhookEvent(endpointId);
    await recordHostileAttempt(message.id);
    await dashboard.tidings.admin.suspendProject(id, { reason: 'abuse' });
    const path = `/dashboard/projects/${id}/webhooks/${endpointId}`;
    for (const target of [`${path}/test`, `${path}/replay`, `${path}/messages/${message.id}/resend`]) {
      const refused = await browser.post(target, { since: '2026-01-01T00:00' });
      expect(refused.status, target).toBe(403);
      expect(await refused.text(), target).toContain('PROJECT_SUSPENDED');
    }
    expect(await dashboard.tidings.admin.listWebhookMessages(endpointId)).toMatchObject([{ status: 'failed' }]);
    // Its endpoints can still be turned off.
    expect((await browser.post(`${path}/disable`)).status).toBe(303);
    await browser.post(`${path}/delete`);
    const response = await browser.post(`/dashboard/projects/${id}/webhooks`, {
      url: 'https://example.com/hooks',
      events: '*',
    });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('it takes no new webhook endpoints. Ask an operator to resume it.');
    expect(await dashboard.tidings.admin.listWebhookEndpoints(id)).toHaveLength(0);
  });

  it('escapes a hostile URL and description on every page', async () => {
    dashboard = createTestDashboard();
    const browser = await signUpVerified(dashboard);
    const id = await createProject(browser);
    const url = 'https://example.com/"><script>alert(1)</script>?q=<img src=x onerror=alert(2)>';
    const description = '<img src=x onerror=alert(3)>"\'&';
    const { html: created, id: endpointId } = await createEndpoint(browser, id, { url, description, events: '*' });
    expect((await dashboard.tidings.admin.getWebhookEndpoint(endpointId)).url).toBe(url);
    const path = `/dashboard/projects/${id}/webhooks/${endpointId}`;
    const pages = [
      created,
      await (await browser.get(`/dashboard/projects/${id}/webhooks`)).text(),
      await (await browser.get(path)).text(),
      await (await browser.get(`${path}/edit`)).text(),
      await (await browser.get(`${path}/roll`)).text(),
      await (await browser.get(`${path}/delete`)).text(),
      await auditLog(browser, id),
    ];
    for (const page of pages) {
      expect(page).not.toContain('<script>alert');
      expect(page).not.toContain('<img src=x');
      expect(page).toContain('&lt;img src=x onerror=alert(');
    }
    // The edit form holds the values escaped in its attributes.
    expect(pages[3]).toContain('value="https://example.com/&quot;&gt;&lt;script&gt;');
  });
});

describe('webhook messages', () => {
  async function endpointWithProject() {
    dashboard = createTestDashboard();
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const { id: endpointId } = await createEndpoint(browser, projectId);
    return { browser, projectId, endpointId, path: `/dashboard/projects/${projectId}/webhooks/${endpointId}` };
  }

  it('sends a test event and lists the messages newest first, 25 a page, filtered by status', async () => {
    const { browser, endpointId, path } = await endpointWithProject();
    const empty = await (await browser.get(path)).text();
    expect(empty).toContain('No messages yet.');
    const sent = await browser.post(`${path}/test`);
    expect(sent.status).toBe(303);
    expect(sent.headers.get('Location')).toBe(`${path}?tested=1#messages`);
    const [message] = await dashboard.tidings.admin.listWebhookMessages(endpointId);
    expect(message).toMatchObject({ event_type: 'webhook.test', status: 'pending', endpoint_id: endpointId });
    const page = await (await browser.get(`${path}?tested=1`)).text();
    expect(page).toContain('A test event is on its way');
    expect(page).toContain(`data-message-id="${message!.id}" data-status="pending"`);

    for (let i = 0; i < 26; i++) {
      dashboard.clock.advance(1000);
      await browser.post(`${path}/test`);
    }
    const all = await dashboard.tidings.admin.listWebhookMessages(endpointId, { limit: 100 });
    expect(all).toHaveLength(27);
    const first = await (await browser.get(path)).text();
    const ids = [...first.matchAll(/data-message-id="(msg_[0-9a-z]+)"/g)].map((match) => match[1]);
    expect(ids).toEqual(all.slice(0, 25).map((item) => item.id));
    const next = /href="([^"]+)" rel="next"/.exec(first)?.[1]?.replaceAll('&amp;', '&') ?? '';
    expect(next).toContain(`before=${all[24]!.id}`);
    const second = await (await browser.get(next)).text();
    expect([...second.matchAll(/data-message-id="(msg_[0-9a-z]+)"/g)].map((match) => match[1])).toEqual(
      all.slice(25).map((item) => item.id),
    );
    expect(second).not.toContain('rel="next"');
    const delivered = await (await browser.get(`${path}?status=delivered`)).text();
    expect(delivered).toContain('No messages delivered.');
    expect(delivered).toMatch(/<option value="delivered" selected="">/);
    const pending = await (await browser.get(`${path}?status=pending`)).text();
    expect(pending.match(/data-status="pending"/g)).toHaveLength(25);
    // A filter or cursor of the wrong shape is ignored, not passed on.
    expect((await browser.get(`${path}?status=bogus&before=x`)).status).toBe(200);
  });

  it('shows a message with its payload and requests, escaped, and resends it with the same id, audited', async () => {
    const { browser, projectId, endpointId, path } = await endpointWithProject();
    await browser.post(`${path}/test`);
    const [message] = await dashboard.tidings.admin.listWebhookMessages(endpointId);
    await recordHostileAttempt(message!.id);
    const html = await (await browser.get(`${path}/messages/${message!.id}`)).text();
    expect(html).toContain('webhook.test');
    expect(html).toContain(`&quot;endpoint_id&quot;: &quot;${endpointId}&quot;`);
    expect(html).toContain('<td data-field="status-code" data-label="Status code">500</td>');
    // The headers the request carried: the message's id, and the request's time in seconds.
    const seconds = Math.floor(dashboard.clock.now() / 1000);
    expect(html).toContain(`webhook-id: ${message!.id}\nwebhook-timestamp: ${seconds}\n`);
    expect(html).toContain('user-agent: Tidings');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert(1)</script>');

    const resent = await browser.post(`${path}/messages/${message!.id}/resend`);
    expect(resent.status).toBe(303);
    expect(resent.headers.get('Location')).toBe(`${path}/messages/${message!.id}?resent=1`);
    const after = await dashboard.tidings.admin.getWebhookMessage(message!.id);
    expect(after).toMatchObject({ id: message!.id, status: 'pending' });
    expect(await (await browser.get(`${path}/messages/${message!.id}?resent=1`)).text()).toContain(
      'The message is sent again, with the same id',
    );
    const audit = await auditLog(browser, projectId);
    expect(audit).toContain('Webhook message resent');
    expect(audit).toContain(`${message!.id} webhook.test (${endpointId})`);
  });

  it('replays the messages since a time, refusing a time that is not one, audited', async () => {
    const { browser, projectId, endpointId, path } = await endpointWithProject();
    await browser.post(`${path}/test`);
    const [message] = await dashboard.tidings.admin.listWebhookMessages(endpointId);
    await recordHostileAttempt(message!.id);
    const bad = await browser.post(`${path}/replay`, { since: 'yesterday' });
    expect(bad.status).toBe(400);
    const badHtml = await bad.text();
    expect(badHtml).toContain('Enter a date and time (UTC)');
    expect(badHtml).toContain('value="yesterday"');
    const later = new Date(dashboard.clock.now() + 3_600_000).toISOString().slice(0, 16);
    const none = await browser.post(`${path}/replay`, { since: later });
    expect(none.headers.get('Location')).toBe(`${path}?replayed=0#messages`);
    expect(await (await browser.get(`${path}?replayed=0`)).text()).toContain('nothing to replay');
    expect((await dashboard.tidings.admin.getWebhookMessage(message!.id)).status).toBe('failed');
    const since = new Date(dashboard.clock.now() - 3_600_000).toISOString().slice(0, 16);
    const replayed = await browser.post(`${path}/replay`, { since });
    expect(replayed.status).toBe(303);
    expect(replayed.headers.get('Location')).toBe(`${path}?replayed=1#messages`);
    expect(await (await browser.get(`${path}?replayed=1`)).text()).toContain('1 message is sent again, in order.');
    expect((await dashboard.tidings.admin.getWebhookMessage(message!.id)).status).toBe('pending');
    const audit = await auditLog(browser, projectId);
    expect(audit).toContain('Webhook messages replayed');
    expect(audit).toContain(`1 messages since ${since}:00.000Z of https://example.com/hooks (${endpointId})`);
  });

  it("answers 404 for another account's messages and another endpoint's, and refuses foreign origins", async () => {
    const { browser, projectId, endpointId, path } = await endpointWithProject();
    await browser.post(`${path}/test`);
    const [message] = await dashboard.tidings.admin.listWebhookMessages(endpointId);
    const { id: otherEndpoint } = await createEndpoint(browser, projectId, {
      url: 'https://example.com/other',
      events: '*',
    });
    const otherPath = `/dashboard/projects/${projectId}/webhooks/${otherEndpoint}`;
    expect((await browser.get(`${otherPath}/messages/${message!.id}`)).status).toBe(404);
    expect((await browser.post(`${otherPath}/messages/${message!.id}/resend`)).status).toBe(404);
    expect((await browser.get(`${path}/messages/msg_00000000000000000000000000`)).status).toBe(404);

    const eve = await signUpVerified(dashboard, 'eve@example.com');
    expect((await eve.get(`${path}/messages/${message!.id}`)).status).toBe(404);
    for (const target of [`${path}/test`, `${path}/replay`, `${path}/messages/${message!.id}/resend`]) {
      expect((await eve.post(target, { since: '2026-01-01T00:00' })).status, target).toBe(404);
      const foreign = await browser.post(target, { since: '2026-01-01T00:00' }, { Origin: 'https://evil.test' });
      expect(foreign.status, target).toBe(403);
    }
    expect(await dashboard.tidings.admin.listWebhookMessages(endpointId)).toHaveLength(1);
    expect(await dashboard.tidings.admin.listWebhookMessages(otherEndpoint)).toHaveLength(0);
    const events = await dashboard.dashboardStore.listAuditEvents({ projectId, limit: 20 });
    expect(events.map((event) => event.action)).not.toContain('webhook.message_resent');
    expect(events.map((event) => event.action)).not.toContain('webhook.messages_replayed');
  });
});
