import { inbox, requestLog } from '@tidings/core';
import { until } from '@tidings/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDashboard, ORIGIN, signUpVerified } from '../../../../test/support/dashboard-app.js';

let dashboard: ReturnType<typeof createTestDashboard>;
afterEach(async () => {
  await dashboard.close();
});

const KEY_PATTERN = /sk_live_[A-Za-z0-9]{32}/;

async function api(path: string, key: string, body: unknown) {
  const response = await dashboard.app.request(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, requestId: response.headers.get('Request-Id')!, json: await response.json() };
}

/** The timeline's entries as the page lists them: channel, what, link. */
function entriesOf(html: string) {
  const list = /<ol class="timeline"[^>]*>(.*?)<\/ol>/s.exec(html)?.[1] ?? '';
  return [...list.matchAll(/<li data-channel="([a-z]+)"[^>]*>(.*?)<\/li>/gs)].map((match) => ({
    channel: match[1]!,
    what: /<strong[^>]*>(.*?)<\/strong>/s.exec(match[2]!)?.[1] ?? '',
    href: /<a href="([^"]+)"/.exec(match[2]!)?.[1] ?? null,
  }));
}

describe('a notification’s timeline', () => {
  it('lists its request, its attempt and receipts, and each webhook request with its status, in order, each linked', async () => {
    dashboard = createTestDashboard({}, { features: [inbox(), requestLog({ flushIntervalMs: 5 })] });
    const browser = await signUpVerified(dashboard);
    const projectId = ((await browser.post('/dashboard/projects', { name: 'Shop' })).headers.get('Location') ?? '')
      .split('/')
      .pop()!;
    const created = await browser.post(`/dashboard/projects/${projectId}/keys`, { name: 'server', mode: 'live' });
    const live = KEY_PATTERN.exec(await created.text())![0];
    const endpoint = await dashboard.tidings.admin.createWebhookEndpoint({
      projectId,
      url: 'https://example.com/hooks',
      events: ['notification.completed'],
    });
    const token = await api('/v1/connect-tokens', live, { recipient: 'eve' });
    const registered = await (
      await dashboard.app.request(new URL(token.json.connect_url, ORIGIN).toString(), { method: 'POST' })
    ).json();
    dashboard.clock.advance(1000);
    const sent = await api('/v1/notifications', live, { recipient: 'eve', title: 'Shipped' });
    expect(sent.status).toBe(201);
    dashboard.clock.advance(1000);
    const receipt = await dashboard.app.request(`${ORIGIN}/v1/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        browser_id: registered.browser_id,
        browser_secret: registered.browser_secret,
        events: [{ type: 'delivered', attempt_id: sent.json.attempts[0].id }],
      }),
    });
    expect(receipt.status).toBe(202);
    const [message] = await dashboard.tidings.admin.listWebhookMessages(endpoint.id, { notificationId: sent.json.id });
    expect(message?.event_type).toBe('notification.completed');
    for (const [status, outcome] of [
      [500, 'failed'],
      [200, 'succeeded'],
    ] as const) {
      dashboard.clock.advance(5000);
      await dashboard.store.recordWebhookAttempt({
        attempt: {
          messageId: message!.id,
          attemptedAt: dashboard.clock.now(),
          statusCode: status,
          latencyMs: 30,
          outcome,
          responseExcerpt: null,
          error: status === 500 ? 'HTTP 500' : null,
        },
        status: status === 500 ? 'pending' : 'delivered',
        nextAttemptAt: status === 500 ? dashboard.clock.now() + 5000 : null,
      });
    }
    await until(
      async () => (await dashboard.tidings.admin.listRequests(projectId, { search: sent.json.id })).requests,
      {
        accept: (requests) => requests.length === 1,
        what: 'the send in the request log',
      },
    );

    const root = `/dashboard/projects/${projectId}`;
    const html = await (await browser.get(`${root}/notifications/${sent.json.id}`)).text();
    const entries = entriesOf(html);
    expect(entries.map((entry) => `${entry.channel}: ${entry.what}`)).toEqual([
      'api: POST /v1/notifications: 201',
      'browser: attempt accepted',
      'browser: written to the browser',
      'browser: delivered',
      'webhook: webhook notification.completed',
      'webhook: webhook request: HTTP 500',
      'webhook: webhook request: HTTP 200',
    ]);
    const messagePage = `${root}/webhooks/${endpoint.id}/messages/${message!.id}`;
    expect(entries.map((entry) => entry.href)).toEqual([
      `${root}/requests/${sent.requestId}`,
      `${root}/browsers/${registered.browser_id}`,
      `${root}/browsers/${registered.browser_id}`,
      `${root}/browsers/${registered.browser_id}`,
      messagePage,
      messagePage,
      messagePage,
    ]);
    for (const href of new Set(entries.map((entry) => entry.href!))) expect((await browser.get(href)).status).toBe(200);
    // Its webhook messages, a click away, filtered by this notification.
    expect(html).toContain(`href="${root}/webhooks/${endpoint.id}?notification=${sent.json.id}#messages"`);
  });
});
