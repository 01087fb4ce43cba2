import { seedBrowser, sendCreated } from '@tidings/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDashboard, ORIGIN, signUpVerified } from '../../../../test/support/dashboard-app.js';

let dashboard: ReturnType<typeof createTestDashboard>;
beforeEach(() => {
  dashboard = createTestDashboard();
});
afterEach(async () => {
  await dashboard.close();
});

const KEY_PATTERN = /sk_(live|test)_[A-Za-z0-9]{32}/;
type Browser = Awaited<ReturnType<typeof signUpVerified>>;

async function createProject(browser: Browser) {
  const response = await browser.post('/dashboard/projects', { name: 'Shop' });
  expect(response.status).toBe(303);
  return (response.headers.get('Location') ?? '').split('/').pop()!;
}

async function createKey(browser: Browser, projectId: string, name: string, mode: 'live' | 'test' = 'live') {
  const created = await browser.post(`/dashboard/projects/${projectId}/keys`, { name, mode });
  expect(created.status).toBe(200);
  const key = KEY_PATTERN.exec(await created.text())?.[0];
  if (!key) throw new Error('no key in the answer');
  return key;
}

async function api(path: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
  return dashboard.app.request(`${ORIGIN}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Connects a browser for the recipient without a stream (the poll registration); its credentials. */
async function connectBrowser(key: string, recipient: string) {
  const token = (await (await api('/v1/connect-tokens', key, { recipient })).json()) as { connect_url: string };
  const registered = await dashboard.app.request(new URL(token.connect_url, ORIGIN).toString(), { method: 'POST' });
  expect(registered.status).toBe(201);
  const { browser_id, browser_secret } = (await registered.json()) as { browser_id: string; browser_secret: string };
  return { browser_id, browser_secret };
}

async function send(key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const sent = await api('/v1/notifications', key, body, headers);
  expect(sent.status).toBe(201);
  return {
    requestId: sent.headers.get('Request-Id') ?? '',
    notification: (await sent.json()) as { id: string; attempts: { id: string }[] },
  };
}

describe('one notification’s page', () => {
  it('shows the request: payload escaped, the named key by prefix, the request id and the Idempotency-Key', async () => {
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const key = await createKey(browser, projectId, 'checkout-server');
    const credentials = await connectBrowser(key, 'user_42');
    const { requestId, notification } = await send(
      key,
      {
        recipient: 'user_42',
        title: 'Order <b>shipped</b>',
        body: '<script>alert(1)</script>',
        url: 'https://shop.example/orders/42?a=1&b=2',
        data: { order: 42, note: '<img src=x onerror=alert(1)>' },
      },
      { 'Idempotency-Key': 'order-42-shipped' },
    );
    expect(requestId).toMatch(/^req_/);
    const receipt = await dashboard.app.request(`${ORIGIN}/v1/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        ...credentials,
        events: [
          { type: 'delivered', attempt_id: notification.attempts[0]!.id },
          { type: 'clicked', attempt_id: notification.attempts[0]!.id },
        ],
      }),
    });
    expect(receipt.status).toBe(202);

    const log = await (await browser.get(`/dashboard/projects/${projectId}/log`)).text();
    expect(log).toContain(
      `<a class="clip" href="/dashboard/projects/${projectId}/notifications/${notification.id}" title="Order &lt;b&gt;shipped&lt;/b&gt;">Order &lt;b&gt;shipped&lt;/b&gt;</a>`,
    );

    const response = await browser.get(`/dashboard/projects/${projectId}/notifications/${notification.id}`);
    expect(response.status).toBe(200);
    const html = await response.text();
    // Escaped everywhere: no tag of the payload reaches the page as markup.
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<b>shipped</b>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&quot;order&quot;: 42');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    const field = (name: string) => new RegExp(`<dd data-field="${name}">(.*?)</dd>`, 's').exec(html)?.[1] ?? '';
    expect(field('key')).toContain(`<code>${key.slice(0, 12)}…</code>`);
    expect(field('key')).toContain('checkout-server');
    expect(field('request-id')).toBe(`<code>${requestId}</code>`);
    expect(field('idempotency-key')).toBe('<code>order-42-shipped</code>');
    // The secret never: only its prefix.
    expect(html).not.toContain(key);
    const attempt = new RegExp(`<tr data-attempt-id="${notification.attempts[0]!.id}">(.*?)</tr>`, 's').exec(html)?.[1];
    expect(attempt).toContain(credentials.browser_id);
    expect(attempt).toContain('delivered');
    expect(attempt).toMatch(/<td data-receipt="delivered"[^>]*><time/);
    expect(attempt).toMatch(/<td data-receipt="clicked"[^>]*><time/);
    expect(attempt).toMatch(/<td data-receipt="dismissed"[^>]*><span class="muted">—/);
    // The click read the recipient's inbox item, on every device of theirs.
    const inbox = (name: string) => new RegExp(`<dd data-inbox="${name}">(.*?)</dd>`, 's').exec(html)?.[1] ?? '';
    expect(inbox('read')).toMatch(/^<time/);
    expect(inbox('seen')).toMatch(/^<time/);
    expect(inbox('archived')).toContain('—');
    expect(inbox('counts')).toMatch(/^0 unread, 0 unseen of 1 .*items kept 90 days/s);
  });

  it("shows each attempt's path: the poll that answered it, not sent yet, or not recorded", async () => {
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const key = await createKey(browser, projectId, 'server');
    const token = (await (await api('/v1/connect-tokens', key, { recipient: 'user_7' })).json()) as {
      connect_url: string;
    };
    const connectUrl = new URL(token.connect_url, ORIGIN).toString();
    const { browser_id, browser_secret } = (await (
      await dashboard.app.request(connectUrl, { method: 'POST' })
    ).json()) as {
      browser_id: string;
      browser_secret: string;
    };
    const registered = { browser_id, browser_secret };
    const pathOf = async (notification: { id: string; attempts: { id: string }[] }) => {
      const html = await (
        await browser.get(`/dashboard/projects/${projectId}/notifications/${notification.id}`)
      ).text();
      const row = new RegExp(`<tr data-attempt-id="${notification.attempts[0]!.id}">(.*?)</tr>`, 's').exec(html)?.[1];
      return /<td data-field="path"[^>]*>(.*?)<\/td>/s.exec(row ?? '')?.[1];
    };

    const polled = (await send(key, { recipient: 'user_7', title: 'By poll' })).notification;
    expect(await pathOf(polled)).toBe('<span class="muted">not sent yet</span>');
    // The browser polls (the transport where proxies break streams): the answer records the path.
    const poll = await dashboard.app.request(connectUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(registered),
    });
    expect(poll.status).toBe(200);
    expect(await pathOf(polled)).toBe('poll');
    // The log of sends counts the attempts by status and path.
    const logRow = async (notification: { id: string }) => {
      const log = await (await browser.get(`/dashboard/projects/${projectId}/log`)).text();
      return new RegExp(`notifications/${notification.id}".*?</tr>`, 's').exec(log)?.[0] ?? '';
    };
    expect(await logRow(polled)).toContain('<td data-label="Attempts">1 sent via poll</td>');

    // Delivered before any record of sending: its path is not known.
    const early = (await send(key, { recipient: 'user_7', title: 'Early receipt' })).notification;
    const receipt = await dashboard.app.request(`${ORIGIN}/v1/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...registered, events: [{ type: 'delivered', attempt_id: early.attempts[0]!.id }] }),
    });
    expect(receipt.status).toBe(202);
    expect(await pathOf(early)).toBe('<span class="muted">not recorded</span>');
    expect(await logRow(early)).toContain('<td data-label="Attempts">1 delivered</td>');
  });

  it('says "none" for a send without an Idempotency-Key, and "not recorded" for a send stored before', async () => {
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const key = await createKey(browser, projectId, 'tests', 'test');
    await connectBrowser(key, 'user_1');
    const { requestId, notification } = await send(key, { recipient: 'user_1', title: 'Hi' });
    const page = await (await browser.get(`/dashboard/projects/${projectId}/notifications/${notification.id}`)).text();
    expect(page).toContain('<dd data-field="idempotency-key"><span class="muted">none</span></dd>');
    expect(page).toContain(requestId);
    expect(page).toContain('none (test mode)');

    // A send stored before the request was kept: its key, request id and Idempotency-Key are null.
    const old = await sendCreated(dashboard.store, {
      projectId,
      recipient: 'user_1',
      mode: 'test',
      title: 'From before',
      now: dashboard.clock.now(),
    });
    const before = await (
      await browser.get(`/dashboard/projects/${projectId}/notifications/${old.notification.id}`)
    ).text();
    for (const name of ['key', 'request-id', 'idempotency-key']) {
      expect(before).toMatch(new RegExp(`<dd data-field="${name}"><span class="muted">not recorded`));
    }
  });

  it('answers 404 NOT_FOUND for another project’s notification and for a made-up id', async () => {
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const other = await createProject(browser);
    const key = await createKey(browser, other, 'other');
    await connectBrowser(key, 'user_1');
    const { notification } = await send(key, { recipient: 'user_1', title: 'Elsewhere' });
    for (const id of [notification.id, 'ntf_00000000000000000000000000', 'nonsense']) {
      const response = await browser.get(`/dashboard/projects/${projectId}/notifications/${id}`);
      expect(response.status).toBe(404);
      expect(await response.text()).toContain('NOT_FOUND');
    }
  });
});

describe('usage', () => {
  it('shows live and test, sent and delivered, over the last 30 days by default', async () => {
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const live = await createKey(browser, projectId, 'live');
    const test = await createKey(browser, projectId, 'test', 'test');
    const credentials = await connectBrowser(live, 'user_1');
    const first = await send(live, { recipient: 'user_1', title: 'One' });
    await send(live, { recipient: 'user_1', title: 'Two' });
    await send(test, { recipient: 'user_1', title: 'Three' });
    // A poll hands both live attempts to the browser (sent); it confirms one (delivered).
    const token = (await (await api('/v1/connect-tokens', live, { recipient: 'user_1' })).json()) as {
      connect_url: string;
    };
    const poll = await dashboard.app.request(new URL(token.connect_url, ORIGIN).toString(), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(credentials),
    });
    expect(poll.status).toBe(200);
    await dashboard.app.request(`${ORIGIN}/v1/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        ...credentials,
        events: [{ type: 'delivered', attempt_id: first.notification.attempts[0]!.id }],
      }),
    });

    const response = await browser.get(`/dashboard/projects/${projectId}/usage`);
    expect(response.status).toBe(200);
    const html = await response.text();
    // The test dashboard's clock stands at 2026-01-10.
    expect(html).toContain('Usage, 2025-12-12 to 2026-01-10');
    expect(html).toContain('value="2025-12-12"');
    expect(html).toContain('value="2026-01-10"');
    const row = /<tr data-date="2026-01-10">(.*?)<\/tr>/s.exec(html)?.[1] ?? '';
    const cells = [...row.matchAll(/<td class="num"[^>]*>(\d+)<\/td>/g)].map((match) => Number(match[1]));
    // live notifications, live attempts, sent, delivered, test notifications
    expect(cells).toEqual([2, 2, 2, 1, 1]);
    expect(html.match(/<tr data-date=/g)).toHaveLength(30);
    expect(html).toContain('Notifications per UTC day, live and test');
    expect(html).toContain('Live attempts per UTC day, sent and delivered');
    expect(html).toContain('2026-01-10: 1 delivered (the browser confirmed)');
    expect(html).toContain('2026-01-10: 1 test notifications');
  });

  it('shows a range of the form, and refuses a bad one with 400 and what to do', async () => {
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const page = await browser.get(`/dashboard/projects/${projectId}/usage?from=2026-01-01&to=2026-01-07`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Usage, 2026-01-01 to 2026-01-07');
    expect(html.match(/<tr data-date=/g)).toHaveLength(7);

    const refusals: [string, RegExp][] = [
      ['from=2026-02-30&to=2026-03-01', /From must be a date, YYYY-MM-DD/],
      ['from=yesterday', /From must be a date, YYYY-MM-DD/],
      ['from=2026-01-01&to=01%2F07%2F2026', /To must be a date, YYYY-MM-DD/],
      ['from=2026-01-08&to=2026-01-07', /From must not be after to/],
      ['from=2024-01-01&to=2026-01-07', /To must be at most 366 days after from/],
    ];
    for (const [query, message] of refusals) {
      const refused = await browser.get(`/dashboard/projects/${projectId}/usage?${query}`);
      expect(refused.status, query).toBe(400);
      const text = await refused.text();
      expect(text, query).toContain('Choose other dates, then show the usage again.');
      expect(text, query).not.toContain('VALIDATION_FAILED');
      expect(text, query).toMatch(message);
      expect(text, query).toContain('role="alert"');
      expect(text, query).not.toContain('<tr data-date=');
    }
  });
});

describe('usage by month', () => {
  /** Records `count` sends of the project at `at`, as the API would have (the store's own fixture). */
  async function sendsAt(projectId: string, at: number, count: number, mode: 'live' | 'test' = 'live') {
    for (let i = 0; i < count; i++) {
      await sendCreated(dashboard.store, { projectId, recipient: 'user_1', mode, now: at + i });
    }
  }

  async function seeded(limit: number | null) {
    await dashboard.close();
    dashboard = createTestDashboard({ monthlyNotificationLimit: async () => limit });
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    // One browser of the recipient, so each send has one attempt (written to no stream yet).
    await seedBrowser(dashboard.store, projectId, 'user_1', Date.UTC(2025, 0, 1));
    // The test dashboard's clock stands at 2026-01-10: the months are February 2025 to January 2026.
    await sendsAt(projectId, Date.UTC(2025, 0, 31, 23, 59), 7); // before the window
    await sendsAt(projectId, Date.UTC(2025, 1, 1), 1);
    await sendsAt(projectId, Date.UTC(2025, 10, 30, 23, 59), 4);
    await sendsAt(projectId, Date.UTC(2025, 11, 1), 2);
    await sendsAt(projectId, Date.UTC(2025, 11, 31, 12), 3);
    await sendsAt(projectId, Date.UTC(2025, 11, 15), 5, 'test');
    await sendsAt(projectId, Date.UTC(2026, 0, 10, 8), 1);
    return { browser, projectId };
  }

  /** The figures of a month's row of the table: live, limit, attempts, sent, delivered, test. */
  function rowOf(html: string, month: string): string[] {
    const row = new RegExp(`<tr data-month="${month}">(.*?)</tr>`, 's').exec(html)?.[1] ?? '';
    return [...row.matchAll(/<td class="num"[^>]*>([^<]*)<\/td>/g)].map((match) => match[1]!);
  }

  it('sums the last 12 UTC months, draws the plan’s limit and marks a month over it', async () => {
    const { browser, projectId } = await seeded(4);
    const response = await browser.get(`/dashboard/projects/${projectId}/usage?view=month`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain('Usage by month, the last 12 months');
    expect(html.match(/<tr data-month=/g)).toHaveLength(12);
    expect(html).not.toContain('data-month="2025-01"');
    expect(rowOf(html, '2025-02')).toEqual(['1', '4', '1', '0', '0', '0']);
    expect(rowOf(html, '2025-11')).toEqual(['4', '4', '4', '0', '0', '0']);
    expect(rowOf(html, '2025-12')).toEqual(['5', '4', '5', '0', '0', '5']);
    expect(rowOf(html, '2026-01')).toEqual(['1', '4', '1', '0', '0', '0']);
    expect(rowOf(html, '2025-06')).toEqual(['0', '4', '0', '0', '0', '0']);
    // Each bar is a link to its month's days, with its value in its title and its label.
    expect(html).toContain(
      `<a href="/dashboard/projects/${projectId}/usage?from=2025-12-01&amp;to=2025-12-31" aria-label="December 2025: 5 live notifications of 4 allowed, over the limit. Show its days." class="bar-link" data-month="2025-12"><title>December 2025: 5 live notifications of 4 allowed</title>`,
    );
    expect(html).toContain('aria-label="November 2025: 4 live notifications of 4 allowed. Show its days."');
    expect(html).toContain('<title>January 2026: 1 live notification of 4 allowed</title>');
    expect(html.match(/class="bar live over"/g)).toHaveLength(1);
    // The limit as a line, in the legend and in words; the y-axis with its values, the months under the bars.
    expect(html).toContain('<g class="limit">');
    expect(html).toContain('limit 4 a month');
    expect(html).toContain('allows <strong>4</strong> live notifications a month');
    for (const tick of ['0', '2', '4', '6']) expect(html).toContain(`class="tick" text-anchor="end">${tick}</text>`);
    for (const month of ['Feb', 'Jun', 'Dec', 'Jan'])
      expect(html).toContain(`class="tick month" text-anchor="middle">${month}</text>`);
    expect(html).toContain('x: UTC month · y: live notifications');
    expect(html).toContain(`<a href="/dashboard/projects/${projectId}/usage?view=month" aria-current="page">`);
  });

  it('draws no limit for a project without one, and says so', async () => {
    const { browser, projectId } = await seeded(null);
    const html = await (await browser.get(`/dashboard/projects/${projectId}/usage?view=month`)).text();
    expect(html).toContain('This project has no monthly limit on its notifications');
    expect(html).not.toContain('class="limit"');
    expect(html).not.toContain('bar live over');
    expect(rowOf(html, '2025-12')).toEqual(['5', 'none', '5', '0', '0', '5']);
    expect(html).toContain('aria-label="December 2025: 5 live notifications. Show its days."');
    // The daily view offers the monthly one.
    const daily = await (await browser.get(`/dashboard/projects/${projectId}/usage`)).text();
    expect(daily).toContain(`<a href="/dashboard/projects/${projectId}/usage?view=month">By month</a>`);
  });
});

describe('the live view', () => {
  it("carries each attempt's path, so the page can say how it went out", async () => {
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const key = await createKey(browser, projectId, 'server');
    const token = (await (await api('/v1/connect-tokens', key, { recipient: 'user_9' })).json()) as {
      connect_url: string;
    };
    const connectUrl = new URL(token.connect_url, ORIGIN).toString();
    const { browser_id, browser_secret } = (await (
      await dashboard.app.request(connectUrl, { method: 'POST' })
    ).json()) as {
      browser_id: string;
      browser_secret: string;
    };
    const { notification } = await send(key, { recipient: 'user_9', title: 'Polled' });
    const polled = await dashboard.app.request(connectUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ browser_id, browser_secret }),
    });
    expect(polled.status).toBe(200);

    const abort = new AbortController();
    const stream = await dashboard.app.request(`${ORIGIN}/dashboard/projects/${projectId}/live/stream`, {
      headers: { Cookie: browser.cookie() },
      signal: abort.signal,
    });
    const reader = stream.body!.getReader();
    let text = '';
    while (!text.includes('event: ready')) text += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    await reader.cancel();
    const update = /event: update\ndata: (.*)\n/.exec(text)?.[1];
    expect(JSON.parse(update ?? 'null')).toMatchObject({
      id: notification.id,
      attempts: [{ id: notification.attempts[0]!.id, status: 'sent', via: 'poll' }],
    });
  });
});

describe('a project’s inbox retention', () => {
  it('shows 90 days at first, refuses a number out of range, saves one in range and records it', async () => {
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const settings = `/dashboard/projects/${projectId}/settings`;
    expect(await (await browser.get(settings)).text()).toMatch(/name="days"[^>]*value="90"/);
    for (const days of ['0', '366', '2.5', 'ten']) {
      const refused = await browser.post(`/dashboard/projects/${projectId}/inbox-retention`, { days });
      expect(refused.status, days).toBe(400);
      expect(await refused.text()).toContain('1 to 365');
    }
    const saved = await browser.post(`/dashboard/projects/${projectId}/inbox-retention`, { days: '30' });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('Location')).toBe(`${settings}?retention=1`);
    const page = await (await browser.get(`${settings}?retention=1`)).text();
    expect(page).toMatch(/name="days"[^>]*value="30"/);
    expect(page).toContain('The inbox retention is saved');
    const audit = await (await browser.get(`/dashboard/projects/${projectId}/audit`)).text();
    expect(audit).toContain('Inbox retention set');
    expect(audit).toContain('inbox items kept 30 days');
  });
});
