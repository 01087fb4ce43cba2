// A customer chasing a lost notification: each defect the walk met, pinned by a case.
import { inbox, requestLog } from '@tidings/core';
import { until } from '@tidings/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDashboard, ORIGIN, signUpVerified } from '../../../../test/support/dashboard-app.js';

let dashboard: ReturnType<typeof createTestDashboard>;
afterEach(async () => {
  await dashboard.close();
});

const KEY_PATTERN = /sk_(live|test)_[A-Za-z0-9]{32}/;
type Browser = Awaited<ReturnType<typeof signUpVerified>>;

function start(limits: { perKey?: number } = {}) {
  dashboard = createTestDashboard(
    {},
    { features: [inbox(), requestLog({ flushIntervalMs: 5 })], ...(limits.perKey ? { limits } : {}) },
  );
}

async function createProject(browser: Browser) {
  const response = await browser.post('/dashboard/projects', { name: 'Shop' });
  return (response.headers.get('Location') ?? '').split('/').pop()!;
}

async function createKey(browser: Browser, projectId: string, mode: 'live' | 'test' = 'live') {
  const created = await browser.post(`/dashboard/projects/${projectId}/keys`, { name: `${mode}-server`, mode });
  const key = KEY_PATTERN.exec(await created.text())?.[0];
  if (!key) throw new Error('no key in the answer');
  return key;
}

async function api(path: string, key: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await dashboard.app.request(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, requestId: response.headers.get('Request-Id')!, json: await response.json() };
}

async function logged(projectId: string, count: number) {
  return until(async () => (await dashboard.tidings.admin.listRequests(projectId, { limit: 100 })).requests, {
    accept: (requests) => requests.length >= count,
    what: `${count} requests in the log`,
  });
}

/** The cells of a row of a DataTable, by their column's label. */
function cellsOf(html: string, rowAttribute: string): Map<string, string> {
  const row = new RegExp(`<tr ${rowAttribute}[^>]*>(.*?)</tr>`, 's').exec(html)?.[1] ?? '';
  return new Map([...row.matchAll(/<td[^>]*data-label="([^"]+)"[^>]*>(.*?)<\/td>/gs)].map((m) => [m[1]!, m[2]!]));
}

describe('the Requests table', () => {
  it('has a cell under every header: the key under Key, the recipient under Recipient, the duration under Duration', async () => {
    start();
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const live = await createKey(browser, projectId);
    const refused = await api('/v1/notifications', live, { recipient: 'alice', title: 'Hi' });
    expect(refused.status).toBe(409);
    await logged(projectId, 1);
    const html = await (await browser.get(`/dashboard/projects/${projectId}/requests`)).text();
    const headers = [...html.matchAll(/<th scope="col"[^>]*>(.*?)<\/th>/g)].length;
    const cells = cellsOf(html, `data-request-id="${refused.requestId}"`);
    expect(cells.size).toBe(headers);
    expect(cells.get('Key')).toContain(`${live.slice(0, 12)}…`);
    expect(cells.get('Recipient')).toContain('alice');
    expect(cells.get('Duration')).toMatch(/\d ms|\d s/);
  });
});

describe('refused requests of a recipient', () => {
  it('carry the recipient for a revoked key’s 401, a live key’s 403 from a browser and a 429, and say which', async () => {
    start({ perKey: 2 });
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const live = await createKey(browser, projectId);
    const test = await createKey(browser, projectId, 'test');
    const forbidden = await api(
      '/v1/notifications',
      live,
      { recipient: 'bob', title: 'Hi' },
      { Origin: 'https://shop.example' },
    );
    expect(forbidden.status).toBe(403);
    await api('/v1/notifications', test, { recipient: 'bob', title: 'Hi' });
    await api('/v1/notifications', test, { recipient: 'bob', title: 'Hi' });
    const limited = await api('/v1/notifications', test, { recipient: 'bob', title: 'Hi' });
    expect(limited.status).toBe(429);
    expect(limited.json.detail).toContain('the limit of this API key (2 per 60 s) is reached');
    const keys = await dashboard.tidings.admin.listKeys(projectId);
    await dashboard.tidings.admin.revokeKey(keys.find((key) => key.prefix === live.slice(0, 12))!.id);
    const revoked = await api('/v1/notifications', live, { recipient: 'bob', title: 'Hi' });
    expect(revoked.status).toBe(401);
    expect(revoked.json.detail).toContain('was revoked');

    const requests = await logged(projectId, 5);
    const byId = new Map(requests.map((request) => [request.id, request]));
    for (const refusal of [forbidden, limited, revoked]) {
      expect(byId.get(refusal.requestId)?.recipient).toBe('bob');
    }
    const html = await (await browser.get(`/dashboard/projects/${projectId}/requests?recipient=bob&status=4xx`)).text();
    expect(cellsOf(html, `data-request-id="${revoked.requestId}"`).get('Status')).toContain('revoked key');
    expect(cellsOf(html, `data-request-id="${limited.requestId}"`).get('Status')).toContain('key limit');
    const page = await (await browser.get(`/dashboard/projects/${projectId}/requests/${revoked.requestId}`)).text();
    expect(page).toContain('revoked key');
  });

  it('are where the log of sends and the recipient page lead, and no link of theirs is a 404', async () => {
    start();
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const live = await createKey(browser, projectId);
    const refused = await api('/v1/notifications', live, { recipient: 'bob', title: 'Where is it?' });
    expect(refused.status).toBe(409);
    const token = await api('/v1/connect-tokens', live, { recipient: 'carol' });
    expect(token.status).toBe(201);
    const carolRefused = await api('/v1/notifications', live, { recipient: 'carol', title: 'Hi' });
    expect(carolRefused.status).toBe(409);
    await logged(projectId, 3);

    const log = await (await browser.get(`/dashboard/projects/${projectId}/log?recipient=bob`)).text();
    expect(log).not.toContain('No notifications match these filters');
    expect(log).toContain('A refused send makes no notification');
    const hrefs = [...log.matchAll(/href="(\/dashboard\/projects\/[^"]+)"/g)].map((m) =>
      m[1]!.replaceAll('&amp;', '&'),
    );
    expect(hrefs).toContain(`/dashboard/projects/${projectId}/requests?recipient=bob`);
    for (const href of hrefs) expect([href, (await browser.get(href)).status]).toEqual([href, 200]);
    const requests = await (await browser.get(`/dashboard/projects/${projectId}/requests?recipient=bob`)).text();
    expect(requests).toContain(`data-request-id="${refused.requestId}"`);

    const carol = await (await browser.get(`/dashboard/projects/${projectId}/recipients/carol`)).text();
    expect(carol).toContain(`href="/dashboard/projects/${projectId}/requests?recipient=carol"`);
    const carolRequests = await (await browser.get(`/dashboard/projects/${projectId}/requests?recipient=carol`)).text();
    expect(carolRequests).toContain(`data-request-id="${carolRefused.requestId}"`);
    expect(carolRequests).toContain(`data-request-id="${token.requestId}"`);
  });
});

describe('a notification’s status', () => {
  it('is not headed “completed” alone when its only attempt failed', async () => {
    start();
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const live = await createKey(browser, projectId);
    const token = await api('/v1/connect-tokens', live, { recipient: 'dan' });
    const connected = await dashboard.app.request(new URL(token.json.connect_url, ORIGIN).toString(), {
      method: 'POST',
    });
    const { browser_id: browserId, browser_secret: secret } = await connected.json();
    const sent = await api('/v1/notifications', live, { recipient: 'dan', title: 'Lost' });
    expect(sent.status).toBe(201);
    const gone = await dashboard.app.request(`${ORIGIN}/v1/browsers/${browserId}/disconnect`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ browser_secret: secret }),
    });
    expect(gone.status).toBe(204);
    const page = await (await browser.get(`/dashboard/projects/${projectId}/notifications/${sent.json.id}`)).text();
    const status = /<dd data-field="status">(.*?)<\/dd>/s.exec(page)?.[1] ?? '';
    expect(status).toContain('not delivered');
    expect(status).toContain('browser_disconnected');
    const log = await (await browser.get(`/dashboard/projects/${projectId}/log`)).text();
    expect(cellsOf(log, `data-notification-id="${sent.json.id}"`).get('Status')).toContain('not delivered');
  });
});

describe('a webhook endpoint answering 500', () => {
  async function endpointWithMessages() {
    start();
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const endpoint = await dashboard.tidings.admin.createWebhookEndpoint({
      projectId,
      url: 'https://example.com/hooks',
      events: ['*'],
    });
    // Two messages of one order: the second waits behind the first.
    const first = await dashboard.tidings.admin.sendTestWebhookEvent(endpoint.id);
    dashboard.clock.advance(1000);
    const second = await dashboard.tidings.admin.sendTestWebhookEvent(endpoint.id);
    dashboard.clock.advance(13_000);
    await dashboard.store.recordWebhookAttempt({
      attempt: {
        messageId: first.id,
        attemptedAt: dashboard.clock.now(),
        statusCode: 500,
        latencyMs: 40,
        outcome: 'failed',
        responseExcerpt: 'oops',
        error: 'HTTP 500',
      },
      status: 'pending',
      nextAttemptAt: dashboard.clock.now() + 15 * 60_000,
    });
    const path = `/dashboard/projects/${projectId}/webhooks/${endpoint.id}`;
    return { browser, projectId, path, first, second };
  }

  it('says “HTTP 500, retrying” of the latest request, not “refused”', async () => {
    const { browser, projectId, path, first } = await endpointWithMessages();
    const page = await (await browser.get(path)).text();
    expect(page).toContain('HTTP 500, retrying');
    expect(page).not.toContain('refused, retrying');
    const list = await (await browser.get(`/dashboard/projects/${projectId}/webhooks`)).text();
    expect(list).not.toContain('refused');
    const message = await (await browser.get(`${path}/messages/${first.id}`)).text();
    expect(/<dd data-field="status">(.*?)<\/dd>/s.exec(message)?.[1]).toContain('retrying after HTTP 500');
  });

  it('says which older message a queued message waits behind, instead of a next attempt in the past', async () => {
    const { browser, path, first, second } = await endpointWithMessages();
    const page = await (await browser.get(`${path}/messages/${second.id}`)).text();
    const next = /<dd data-field="next-attempt">(.*?)<\/dd>/s.exec(page)?.[1] ?? '';
    expect(next).toContain(`data-waiting-behind="${first.id}"`);
    expect(next).toContain(`href="${path}/messages/${first.id}"`);
    expect(next).not.toContain('ago');
  });
});

describe('webhook messages, searched', () => {
  it('by event type, notification id and recipient, each message naming its notification and recipient', async () => {
    start();
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const live = await createKey(browser, projectId);
    const endpoint = await dashboard.tidings.admin.createWebhookEndpoint({
      projectId,
      url: 'https://example.com/hooks',
      events: ['*'],
    });
    const connect = async (recipient: string) => {
      const token = await api('/v1/connect-tokens', live, { recipient });
      const url = new URL(token.json.connect_url, ORIGIN).toString();
      const registered = await (await dashboard.app.request(url, { method: 'POST' })).json();
      // The browser's delivered receipt for an attempt: its attempt's events.
      return (attemptId: string) =>
        dashboard.app.request(`${ORIGIN}/v1/events`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            browser_id: registered.browser_id,
            browser_secret: registered.browser_secret,
            events: [{ type: 'delivered', attempt_id: attemptId }],
          }),
        });
    };
    await connect('ann');
    const receiptOfBob = await connect('bob');
    const sent = await api('/v1/notifications', live, { recipient: 'bob', title: 'Hi' });
    expect(sent.status).toBe(201);
    expect((await receiptOfBob(sent.json.attempts[0].id)).status).toBe(202);
    const path = `/dashboard/projects/${projectId}/webhooks/${endpoint.id}`;
    const ids = async (query: string) => {
      const html = await (await browser.get(`${path}?${query}`)).text();
      return [...html.matchAll(/data-message-id="(msg_[0-9a-z]+)"/g)].map((match) => match[1]!);
    };
    const all = await dashboard.tidings.admin.listWebhookMessages(endpoint.id);
    const typeOf = new Map(all.map((message) => [message.id, message.event_type]));
    const connected = await ids('event_type=browser.connected');
    expect(connected).toHaveLength(2);
    expect(connected.every((id) => typeOf.get(id) === 'browser.connected')).toBe(true);
    const bob = await ids('recipient=bob');
    expect(bob.length).toBeGreaterThanOrEqual(2);
    const aboutSend = await ids(`notification=${sent.json.id}`);
    expect(aboutSend.length).toBeGreaterThanOrEqual(1);
    expect(aboutSend.every((id) => bob.includes(id))).toBe(true);
    expect(await ids(`notification=${sent.json.id}&recipient=ann`)).toEqual([]);
    const html = await (await browser.get(`${path}?notification=${sent.json.id}`)).text();
    const cells = cellsOf(html, `data-message-id="${aboutSend[0]}"`);
    expect(cells.get('Notification')).toContain(`/notifications/${sent.json.id}`);
    expect(cells.get('Recipient')).toContain('/recipients/bob');
    const refused = await browser.get(`${path}?notification=nope`);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('A notification id starts with ntf_.');
  });
});
