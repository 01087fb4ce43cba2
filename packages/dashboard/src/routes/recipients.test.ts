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

async function createProject(browser: Browser, name = 'Shop') {
  const response = await browser.post('/dashboard/projects', { name });
  expect(response.status).toBe(303);
  return (response.headers.get('Location') ?? '').split('/').pop()!;
}

async function createKey(browser: Browser, projectId: string) {
  const created = await browser.post(`/dashboard/projects/${projectId}/keys`, { name: 'server', mode: 'live' });
  return KEY_PATTERN.exec(await created.text())![0];
}

function api(path: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
  return dashboard.app.request(`${ORIGIN}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** Registers a browser of the recipient by the poll, with a user agent; its id. */
async function connectBrowser(key: string, recipient: string, userAgent = 'Mozilla/5.0 (X11) Firefox/133.0') {
  const token = (await (await api('/v1/connect-tokens', key, { recipient })).json()) as { connect_url: string };
  const registered = await dashboard.app.request(new URL(token.connect_url, ORIGIN).toString(), {
    method: 'POST',
    headers: { 'User-Agent': userAgent },
  });
  expect(registered.status).toBe(201);
  return ((await registered.json()) as { browser_id: string }).browser_id;
}

async function send(key: string, recipient: string, title: string) {
  const sent = await api('/v1/notifications', key, { recipient, title });
  expect(sent.status).toBe(201);
  return (await sent.json()) as { id: string };
}

describe('the Recipients tab', () => {
  /** The recipients of the rows of a page, in order. */
  function rowsOf(html: string): string[] {
    return [...html.matchAll(/<tr data-recipient="([^"]*)"/g)].map((match) => match[1]!);
  }

  /** The markup of one recipient's row. */
  function rowOf(html: string, recipient: string): string {
    const start = html.indexOf(`<tr data-recipient="${recipient}">`);
    return start === -1 ? '' : html.slice(start, html.indexOf('</tr>', start));
  }

  it('lists every recipient of the project by id, 25 a page by cursor, each linking to its page', async () => {
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const otherProject = await createProject(browser, 'Other');
    const key = await createKey(browser, projectId);
    const root = `/dashboard/projects/${projectId}`;
    const accountId = (await dashboard.dashboardStore.findAccountByEmail('ada@example.com'))!.account.id;
    const own = `dashboard:${accountId}`;
    const users = Array.from({ length: 26 }, (_, i) => `user-${String(i).padStart(2, '0')}`);
    for (const recipient of [...users, 'a:b@c.d', '..', 'Zed', own]) {
      await dashboard.tidings.createConnectToken({ projectId, recipient });
    }
    await connectBrowser(key, 'Zed');
    await connectBrowser(key, 'Zed');
    await dashboard.tidings.createConnectToken({ projectId: otherProject, recipient: 'elsewhere' });

    const first = await browser.get(`${root}/recipients`);
    expect(first.status).toBe(200);
    const html = await first.text();
    // Byte order: `.` before capitals, capitals before small letters.
    expect(rowsOf(html)).toEqual(['..', 'Zed', 'a:b@c.d', own, ...users.slice(0, 21)]);
    expect(html).not.toContain('elsewhere');
    expect(html).toContain(`href="${root}/recipients/a%3Ab%40c.d"`);
    expect(html).toContain(`href="${root}/recipients?recipient=.."`);
    expect(rowOf(html, 'Zed')).toContain('<td class="num" data-label="Connected browsers">2</td>');
    expect(rowOf(html, '..')).toContain('<td class="num" data-label="Connected browsers">0</td>');
    expect(rowOf(html, '..')).toMatch(/<time datetime="2026-01-10T12:00:00.000Z">/);
    expect(rowOf(html, own)).toContain('dashboard tabs');
    expect(rowOf(html, 'Zed')).not.toContain('dashboard tabs');
    expect(html).not.toContain('First page');
    const next = /<a href="([^"]*)" rel="next">Next recipients<\/a>/.exec(html)?.[1] ?? '';
    expect(next).toBe(`${root}/recipients?after=user-20`);

    const second = await browser.get(next);
    expect(second.status).toBe(200);
    const rest = await second.text();
    expect(rowsOf(rest)).toEqual(users.slice(21));
    expect(rest).toContain(`<a href="${root}/recipients">First page</a>`);
    expect(rest).not.toContain('rel="next"');
    // The cursor is an id, percent-encoded in the link.
    const after = await (await browser.get(`${root}/recipients?after=${encodeURIComponent('a:b@c.d')}`)).text();
    expect(rowsOf(after)[0]).toBe(own);
    expect(rowsOf(await (await browser.get(`${root}/recipients?after=zzz`)).text())).toEqual([]);
  });

  it('says a project has no recipients yet, and lists them beside a refused lookup', async () => {
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const root = `/dashboard/projects/${projectId}`;
    const empty = await (await browser.get(`${root}/recipients`)).text();
    expect(empty).toContain('No recipients yet');
    expect(rowsOf(empty)).toEqual([]);

    await dashboard.tidings.createConnectToken({ projectId, recipient: 'user_1' });
    const unknown = await browser.get(`${root}/recipients?recipient=nobody`);
    expect(unknown.status).toBe(404);
    expect(rowsOf(await unknown.text())).toEqual(['user_1']);
    const impossible = await browser.get(`${root}/recipients?recipient=${encodeURIComponent('no spaces')}`);
    expect(impossible.status).toBe(400);
    expect(rowsOf(await impossible.text())).toEqual(['user_1']);
  });

  it('answers a broken page link with 400, saying so, and the first page', async () => {
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const root = `/dashboard/projects/${projectId}`;
    await dashboard.tidings.createConnectToken({ projectId, recipient: 'user_1' });
    for (const after of ['', 'no spaces', 'x'.repeat(129), '<b>']) {
      const response = await browser.get(`${root}/recipients?after=${encodeURIComponent(after)}`);
      expect(response.status, after).toBe(400);
      const html = await response.text();
      expect(html).toContain('The link to that page of recipients is broken');
      expect(html).not.toContain('VALIDATION_FAILED');
      expect(html).not.toContain('<b>');
      expect(rowsOf(html)).toEqual(['user_1']);
    }
    // Another account's project lists nothing of it.
    const stranger = await signUpVerified(dashboard, 'eve@example.com');
    const response = await stranger.get(`${root}/recipients`);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('user_1');
  });
});

describe('a recipient’s page', () => {
  it('shows its browsers, how each connects, its inbox and its notifications, linked from the log', async () => {
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const key = await createKey(browser, projectId);
    const browserId = await connectBrowser(key, 'user_42');
    const sent = await send(key, 'user_42', 'Your order shipped');

    const page = await browser.get(`/dashboard/projects/${projectId}/recipients/user_42`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`href="/dashboard/projects/${projectId}/browsers/${browserId}"`);
    expect(html).toContain('connected');
    expect(html).toContain('poll');
    expect(html).toContain('title="Mozilla/5.0 (X11) Firefox/133.0">Firefox<');
    expect(html).toMatch(/data-field="inbox">1 unread, 1 unseen of 1</);
    expect(html).toContain(`href="/dashboard/projects/${projectId}/notifications/${sent.id}"`);
    expect(html).toContain('aria-current="page">Recipients<');

    // The log and the notification's page link the recipient and the browser.
    const log = await (await browser.get(`/dashboard/projects/${projectId}/log`)).text();
    expect(log).toContain(`href="/dashboard/projects/${projectId}/recipients/user_42"`);
    const notification = await (await browser.get(`/dashboard/projects/${projectId}/notifications/${sent.id}`)).text();
    expect(notification).toContain(`href="/dashboard/projects/${projectId}/recipients/user_42"`);
    expect(notification).toContain(`href="/dashboard/projects/${projectId}/browsers/${browserId}"`);
  });

  it('escapes odd recipient ids in links and pages, `.` and `..` included', async () => {
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const key = await createKey(browser, projectId);
    for (const recipient of ['a:b@c.d', '..', '.']) {
      await connectBrowser(key, recipient);
      await send(key, recipient, `to ${recipient}`);
    }
    const log = await (await browser.get(`/dashboard/projects/${projectId}/log`)).text();
    const root = `/dashboard/projects/${projectId}`;
    expect(log).toContain(`href="${root}/recipients/a%3Ab%40c.d"`);
    expect(log).toContain(`href="${root}/recipients?recipient=.."`);
    expect(log).toContain(`href="${root}/recipients?recipient=."`);

    const odd = await browser.get(`${root}/recipients/a%3Ab%40c.d`);
    expect(odd.status).toBe(200);
    expect(await odd.text()).toContain('<code>a:b@c.d</code>');
    for (const recipient of ['..', '.']) {
      const dots = await browser.get(`${root}/recipients?recipient=${encodeURIComponent(recipient)}`);
      expect(dots.status).toBe(200);
      const html = await dots.text();
      expect(html).toContain(`<code>${recipient}</code>`);
      expect(html).toContain(`to ${recipient}`);
    }
  });

  it('looks a recipient up by id: its page, 400 for an impossible id, 404 for an unknown one', async () => {
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const key = await createKey(browser, projectId);
    await connectBrowser(key, 'user:7');
    const root = `/dashboard/projects/${projectId}`;

    const form = await browser.get(`${root}/recipients`);
    expect(form.status).toBe(200);
    expect(await form.text()).toContain('name="recipient"');
    const found = await browser.get(`${root}/recipients?recipient=${encodeURIComponent(' user:7 ')}`);
    expect(found.status).toBe(303);
    expect(found.headers.get('Location')).toBe(`${root}/recipients/user%3A7`);

    const impossible = await browser.get(`${root}/recipients?recipient=${encodeURIComponent('no spaces <b>')}`);
    expect(impossible.status).toBe(400);
    const text = await impossible.text();
    expect(text).toContain('No recipient can have this id');
    expect(text).toContain('value="no spaces &lt;b&gt;"');
    expect(text).not.toContain('<b>');
    const unknown = await browser.get(`${root}/recipients?recipient=nobody`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('No recipient of this id in this project');
    const long = await browser.get(`${root}/recipients?recipient=${'u'.repeat(130)}`);
    expect(long.status).toBe(400);
    const longHtml = await long.text();
    expect(longHtml).toContain('This is 130 characters long: shorten it to 128 or fewer.');
    expect(longHtml).toContain('<p class="hint counter over" id="lookup-recipient-count">130 / 128: 2 too many</p>');
    expect((await browser.get(`${root}/recipients/nobody`)).status).toBe(404);
    expect((await browser.get(`${root}/recipients/${encodeURIComponent('bad id')}`)).status).toBe(404);
  });
});

describe('a browser’s page', () => {
  it('shows its recipient (linked), state, path, user agent and attempts linked to their notifications', async () => {
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const key = await createKey(browser, projectId);
    const browserId = await connectBrowser(key, 'user_42', 'Mozilla/5.0 <script>x</script>');
    const sent = await send(key, 'user_42', 'Hello there');
    const root = `/dashboard/projects/${projectId}`;

    const page = await browser.get(`${root}/browsers/${browserId}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`href="${root}/recipients/user_42"`);
    expect(html).toMatch(/data-field="state"><span class="badge ok">connected</);
    expect(html).toContain('data-field="connection">poll<');
    expect(html).toContain('Mozilla/5.0 &lt;script&gt;x&lt;/script&gt;');
    expect(html).toContain(`href="${root}/notifications/${sent.id}"`);
    expect(html).toContain('status-accepted');

    // Disconnected by request: the page says so.
    await dashboard.store.disconnectBrowser({ browserId, reason: 'browser_disconnected', now: Date.now() });
    const after = await (await browser.get(`${root}/browsers/${browserId}`)).text();
    expect(after).toContain('disconnected');
    expect(after).toContain('by request');
  });

  it('shows only the push service’s origin, never the endpoint’s path', async () => {
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const key = await createKey(browser, projectId);
    const browserId = await connectBrowser(key, 'user_42');
    await dashboard.store.putPushSubscription({
      browserId,
      endpoint: 'https://updates.push.services.mozilla.com/wpush/v2/gAAAA-capability',
      p256dh: `B${'A'.repeat(86)}`,
      auth: 'A'.repeat(22),
      expiresAt: null,
      now: Date.now(),
    });
    const html = await (await browser.get(`/dashboard/projects/${projectId}/browsers/${browserId}`)).text();
    expect(html).toContain('https://updates.push.services.mozilla.com');
    expect(html).not.toContain('gAAAA-capability');
    expect(html).not.toContain('wpush');
  });

  it('is NOT_FOUND for a browser or recipient of another project, as for an unknown one', async () => {
    const owner = await signUpVerified(dashboard);
    const projectId = await createProject(owner);
    const otherProject = await createProject(owner, 'Other');
    const key = await createKey(owner, projectId);
    const browserId = await connectBrowser(key, 'user_42');
    for (const path of [
      `/dashboard/projects/${otherProject}/browsers/${browserId}`,
      `/dashboard/projects/${otherProject}/recipients/user_42`,
      `/dashboard/projects/${projectId}/browsers/brw_unknown`,
    ]) {
      const response = await owner.get(path);
      expect(response.status).toBe(404);
      const html = await response.text();
      expect(html).toContain('NOT_FOUND');
      expect(html).not.toContain('user_42');
    }
    // Another account reaches neither the project nor its browser.
    const stranger = await signUpVerified(dashboard, 'eve@example.com');
    const response = await stranger.get(`/dashboard/projects/${projectId}/browsers/${browserId}`);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain(browserId);
  });
});
