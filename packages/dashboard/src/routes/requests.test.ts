import { inbox, newId, requestLog } from '@tidings/core';
import { until } from '@tidings/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDashboard, ORIGIN, signUpVerified } from '../../../../test/support/dashboard-app.js';

let dashboard: ReturnType<typeof createTestDashboard>;
beforeEach(() => {
  // Entries are written a fifth of a second after their answer: soon enough for the tests to wait
  // for, and long enough that the reads a test makes at once are counted in one flush.
  dashboard = createTestDashboard({}, { features: [inbox(), requestLog({ flushIntervalMs: 200 })] });
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

async function createKey(browser: Browser, projectId: string, mode: 'live' | 'test') {
  const created = await browser.post(`/dashboard/projects/${projectId}/keys`, { name: `${mode}-server`, mode });
  expect(created.status).toBe(200);
  const key = KEY_PATTERN.exec(await created.text())?.[0];
  if (!key) throw new Error('no key in the answer');
  return key;
}

async function api(path: string, key: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await dashboard.app.request(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, requestId: response.headers.get('Request-Id')!, json: await response.json() };
}

/** The request ids of the rows of a page of the Requests list. */
function rowIds(html: string): string[] {
  return [...html.matchAll(/<tr data-request-id="(req_[0-9a-z]+)"/g)].map((match) => match[1]!);
}

/** A project with a refused send, a token minted, a browser connected and a send accepted, all logged. */
async function projectWithRequests() {
  const browser = await signUpVerified(dashboard);
  const projectId = await createProject(browser);
  const live = await createKey(browser, projectId, 'live');
  const test = await createKey(browser, projectId, 'test');
  const refused = await api(
    '/v1/notifications',
    live,
    { recipient: 'user_7', title: 'Shipped' },
    { 'Idempotency-Key': 'order-7' },
  );
  expect(refused.status).toBe(409);
  const invalid = await api('/v1/notifications', test, '{"recipient":"user_7"}');
  expect(invalid.status).toBe(400);
  const token = await api('/v1/connect-tokens', live, { recipient: 'user_8' });
  expect(token.status).toBe(201);
  const connected = await dashboard.app.request(new URL(token.json.connect_url, ORIGIN).toString(), {
    method: 'POST',
  });
  expect(connected.status).toBe(201);
  const sent = await api('/v1/notifications', live, { recipient: 'user_8', title: 'Hello' });
  expect(sent.status).toBe(201);
  await until(async () => (await dashboard.tidings.admin.listRequests(projectId)).requests.length, {
    accept: (count) => count === 4,
    what: 'the four requests in the log',
  });
  return { browser, projectId, live, test, refused, invalid, token, sent };
}

describe('the Requests page', () => {
  it('lists every request of the project newest first, with its tab, to the millisecond and without any secret', async () => {
    const { browser, projectId, live, test, refused, invalid, token, sent } = await projectWithRequests();
    const response = await browser.get(`/dashboard/projects/${projectId}/requests`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain(`<a href="/dashboard/projects/${projectId}/requests" aria-current="page">Requests</a>`);
    expect(rowIds(html)).toEqual([sent.requestId, token.requestId, invalid.requestId, refused.requestId]);
    expect(html).toMatch(
      /<time datetime="[^"]+"><span class="nowrap">\d{4}-\d\d-\d\d<\/span> <span class="nowrap">\d\d:\d\d:\d\d\.\d{3} UTC<\/span><\/time>/,
    );
    const row = new RegExp(`<tr data-request-id="${refused.requestId}">(.*?)</tr>`, 's').exec(html)?.[1] ?? '';
    expect(row).toContain('NO_CONNECTED_BROWSER');
    expect(row).toContain(`href="/dashboard/projects/${projectId}/requests/${refused.requestId}"`);
    for (const secret of [live, test, token.json.token as string]) expect(html).not.toContain(secret);
  });

  it('filters by status class and mode, and searches by request id, notification id, Idempotency-Key or recipient', async () => {
    const { browser, projectId, refused, invalid, token, sent } = await projectWithRequests();
    const page = async (query: string) =>
      rowIds(await (await browser.get(`/dashboard/projects/${projectId}/requests?${query}`)).text());
    expect(await page('status=4xx')).toEqual([invalid.requestId, refused.requestId]);
    expect(await page('status=2xx&mode=live')).toEqual([sent.requestId, token.requestId]);
    expect(await page('mode=test')).toEqual([invalid.requestId]);
    expect(await page('status=5xx')).toEqual([]);
    expect(await page(`q=${refused.requestId}`)).toEqual([refused.requestId]);
    expect(await page('q=order-7')).toEqual([refused.requestId]);
    expect(await page('q=+user_8+')).toEqual([sent.requestId, token.requestId]);
    expect(await page(`q=${sent.json.id}`)).toEqual([sent.requestId]);
    expect(await page('q=user')).toEqual([]);
    // A value that is none of the choices is no filter.
    expect(await page('status=3xx&mode=nope')).toHaveLength(4);
    const empty = await (await browser.get(`/dashboard/projects/${projectId}/requests?q=nothing-here`)).text();
    expect(empty).toContain('No requests match this search.');
  });

  it('pages by cursor, 25 a page, the filters kept in the link to older requests', async () => {
    const browser = await signUpVerified(dashboard);
    const projectId = await createProject(browser);
    const at = dashboard.clock.now();
    const ids = Array.from({ length: 30 }, (_, i) => newId('req', at + i));
    await dashboard.store.appendRequestLog(
      ids.map((requestId, i) => ({
        requestId,
        projectId,
        method: 'GET',
        path: `/v1/notifications/ntf_${i}`,
        status: 404,
        code: 'NOT_FOUND',
        keyPrefix: 'sk_live_abcd',
        mode: 'live' as const,
        idempotencyKey: null,
        notificationIds: [],
        recipient: null,
        createdAt: at + i,
        durationMs: 2,
        requestBody: null,
        responseBody: null,
      })),
    );
    const newest = [...ids].reverse();
    const first = await (await browser.get(`/dashboard/projects/${projectId}/requests?status=4xx`)).text();
    expect(rowIds(first)).toEqual(newest.slice(0, 25));
    const next = /<a href="([^"]+)" rel="next">Older requests<\/a>/.exec(first)?.[1]?.replaceAll('&amp;', '&');
    expect(next).toBe(`/dashboard/projects/${projectId}/requests?status=4xx&after=${newest[24]}`);
    const older = await (await browser.get(next!)).text();
    expect(rowIds(older)).toEqual(newest.slice(25));
    expect(older).not.toContain('rel="next"');
  });

  it('refuses a search longer than any id with a message, and another account’s project with 404', async () => {
    const { browser, projectId } = await projectWithRequests();
    const long = await browser.get(`/dashboard/projects/${projectId}/requests?q=${'x'.repeat(256)}`);
    expect(long.status).toBe(400);
    expect(await long.text()).toContain('The search is at most 255 characters');
    const stranger = await signUpVerified(dashboard, 'eve@example.com');
    expect((await stranger.get(`/dashboard/projects/${projectId}/requests`)).status).toBe(404);
  });
});

describe('one request’s page', () => {
  it('shows every field and both bodies pretty-printed, the token of an answer removed', async () => {
    const { browser, projectId, live, refused, token } = await projectWithRequests();
    const response = await browser.get(`/dashboard/projects/${projectId}/requests/${refused.requestId}`);
    expect(response.status).toBe(200);
    const html = await response.text();
    const field = (name: string) => new RegExp(`<dd data-field="${name}">(.*?)</dd>`, 's').exec(html)?.[1] ?? '';
    expect(field('request-id')).toBe(`<code>${refused.requestId}</code>`);
    expect(field('status')).toContain('409');
    expect(field('status')).toContain('NO_CONNECTED_BROWSER');
    expect(field('idempotency-key')).toBe('<code>order-7</code>');
    expect(field('recipient')).toBe(
      `<a href="/dashboard/projects/${projectId}/requests?recipient=user_7"><code>user_7</code></a>`,
    );
    expect(field('key')).toBe(`<code>${live.slice(0, 12)}…</code>`);
    expect(html).toContain('&quot;recipient&quot;: &quot;user_7&quot;,\n  &quot;title&quot;: &quot;Shipped&quot;');
    expect(html).toContain('&quot;code&quot;: &quot;NO_CONNECTED_BROWSER&quot;');
    expect(html).not.toContain(live);

    const minted = await (await browser.get(`/dashboard/projects/${projectId}/requests/${token.requestId}`)).text();
    expect(minted).toContain('&quot;token&quot;: &quot;[redacted]&quot;');
    expect(minted).not.toContain(token.json.token as string);
  });

  it('links the notifications a request concerns, and the notification’s page links back to its requests', async () => {
    const { browser, projectId, sent } = await projectWithRequests();
    const html = await (await browser.get(`/dashboard/projects/${projectId}/requests/${sent.requestId}`)).text();
    expect(html).toContain(`<a href="/dashboard/projects/${projectId}/notifications/${sent.json.id}">`);
    const notification = await (
      await browser.get(`/dashboard/projects/${projectId}/notifications/${sent.json.id}`)
    ).text();
    expect(notification).toContain(`href="/dashboard/projects/${projectId}/requests?q=${sent.json.id}"`);
  });

  it('answers 404 for an unknown request id and for another project’s', async () => {
    const { browser, projectId, refused } = await projectWithRequests();
    const other = await createProject(browser);
    expect((await browser.get(`/dashboard/projects/${projectId}/requests/req_nope`)).status).toBe(404);
    expect((await browser.get(`/dashboard/projects/${other}/requests/${refused.requestId}`)).status).toBe(404);
  });
});

describe('searching the log like a ledger', () => {
  it('filters by error code, key, recipient and time range, combined and kept in the URL', async () => {
    const { browser, projectId, live, test, refused, invalid, token, sent } = await projectWithRequests();
    const page = async (query: string) =>
      rowIds(await (await browser.get(`/dashboard/projects/${projectId}/requests?${query}`)).text());
    expect(await page('code=NO_CONNECTED_BROWSER')).toEqual([refused.requestId]);
    expect(await page(`key=${test.slice(0, 12)}`)).toEqual([invalid.requestId]);
    expect(await page(`key=${live.slice(0, 12)}&status=2xx`)).toEqual([sent.requestId, token.requestId]);
    expect(await page('recipient=user_8')).toEqual([sent.requestId, token.requestId]);
    expect(await page('recipient=user_7&code=VALIDATION_FAILED')).toEqual([invalid.requestId]);
    expect(await page('recipient=user_8&code=VALIDATION_FAILED')).toEqual([]);
    const at = new Date(dashboard.clock.now()).toISOString().slice(0, 16);
    const later = new Date(dashboard.clock.now() + 60_000).toISOString().slice(0, 16);
    expect(await page(`from=${at}&to=${later}`)).toHaveLength(4);
    expect(await page(`to=${at}`)).toEqual([]);
    // The filters are in the form again, and in the link to older requests and the exports.
    const html = await (
      await browser.get(`/dashboard/projects/${projectId}/requests?recipient=user_8&code=NO_CONNECTED_BROWSER`)
    ).text();
    expect(html).toMatch(/<option value="NO_CONNECTED_BROWSER" selected="">/);
    expect(html).toContain('value="user_8"');
    expect(html).toContain(
      `href="/dashboard/projects/${projectId}/requests/export?code=NO_CONNECTED_BROWSER&amp;recipient=user_8&amp;format=csv"`,
    );
  });

  it('refuses a key, recipient or time of the wrong shape beside its field, with 400', async () => {
    const { browser, projectId } = await projectWithRequests();
    for (const [query, text] of [
      ['key=sk_live_', 'first 12 characters'],
      ['recipient=a%20b', 'no spaces'],
      ['from=yesterday', 'such as 2026-01-10T12:00'],
      ['from=2026-01-10T13:00&to=2026-01-10T12:00', 'The end must come after the start'],
    ] as const) {
      const response = await browser.get(`/dashboard/projects/${projectId}/requests?${query}`);
      expect([query, response.status]).toEqual([query, 400]);
      const html = await response.text();
      expect(html).toContain(text);
      expect(rowIds(html)).toEqual([]);
    }
  });

  it('exports the filtered log as NDJSON and CSV, without a key or token', async () => {
    const { browser, projectId, live, test, refused, invalid, token, sent } = await projectWithRequests();
    const ndjson = await browser.get(`/dashboard/projects/${projectId}/requests/export?status=4xx&format=ndjson`);
    expect(ndjson.status).toBe(200);
    expect(ndjson.headers.get('Content-Type')).toContain('application/x-ndjson');
    expect(ndjson.headers.get('Content-Disposition')).toMatch(/^attachment; filename="requests-proj_[^"]+\.ndjson"$/);
    const lines = (await ndjson.text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.id)).toEqual([invalid.requestId, refused.requestId]);
    expect(lines[1]).toMatchObject({
      object: 'request',
      status: 409,
      code: 'NO_CONNECTED_BROWSER',
      recipient: 'user_7',
    });

    const csv = await browser.get(`/dashboard/projects/${projectId}/requests/export?format=csv`);
    expect(csv.headers.get('Content-Type')).toContain('text/csv');
    const text = await csv.text();
    const rows = text.trim().split('\r\n');
    expect(rows[0]).toBe(
      'id,created_at,method,path,status,code,mode,key_prefix,idempotency_key,recipient,notification_ids,duration_ms,request_body,response_body',
    );
    expect(rows).toHaveLength(5);
    expect(rows[4]).toContain(`${refused.requestId},`);
    expect(rows[4]).toContain('"{""recipient"":""user_7"",""title"":""Shipped""}"');
    for (const secret of [live, test, token.json.token as string]) expect(text).not.toContain(secret);
    expect(text).toContain(sent.requestId);
  });

  it('offers a request as curl with the key as $TIDINGS_API_KEY, never a key', async () => {
    const { browser, projectId, live, refused } = await projectWithRequests();
    const html = await (await browser.get(`/dashboard/projects/${projectId}/requests/${refused.requestId}`)).text();
    const curl = /<code id="request-curl" data-field="curl">(.*?)<\/code>/s.exec(html)?.[1] ?? '';
    expect(curl).toContain(`curl -X POST &#39;${ORIGIN}/v1/notifications&#39;`);
    expect(curl).toContain('-H &quot;Authorization: Bearer $TIDINGS_API_KEY&quot;');
    expect(curl).toContain('-H &#39;Idempotency-Key: order-7&#39;');
    expect(curl).toContain(
      '--data-raw &#39;{&quot;recipient&quot;:&quot;user_7&quot;,&quot;title&quot;:&quot;Shipped&quot;}&#39;',
    );
    expect(html).not.toContain(live);
    expect(html).toContain('data-copy-command="request-curl"');
  });
});

describe('successful reads', () => {
  it('are counted, one entry per key and flush, and the pages say so plainly', async () => {
    const { browser, projectId, live, sent } = await projectWithRequests();
    // At once, so that they fall in one flush of the log.
    const reads = await Promise.all(
      [1, 2, 3].map(() =>
        dashboard.app.request(`${ORIGIN}/v1/notifications/${sent.json.id}`, {
          headers: { Authorization: `Bearer ${live}` },
        }),
      ),
    );
    expect(reads.map((read) => read.status)).toEqual([200, 200, 200]);
    const counted = await until(
      async () => (await dashboard.tidings.admin.listRequests(projectId, { search: sent.json.id })).requests,
      { accept: (requests) => requests.length === 2, what: 'the count of reads beside the send' },
    );
    const count = counted.find((request) => request.method === 'GET');
    expect(count).toMatchObject({ path: '/v1/notifications/{id}', status: 200 });
    const html = await (await browser.get(`/dashboard/projects/${projectId}/requests`)).text();
    expect(html).toContain(`data-reads="3"`);
    expect(html).toContain('3 reads counted');
    const page = await (await browser.get(`/dashboard/projects/${projectId}/requests/${count!.id}`)).text();
    expect(page).toContain('Reads counted');
    expect(page).toContain('are counted, not kept one by one');
    expect(page).toContain(`href="/dashboard/projects/${projectId}/notifications/${sent.json.id}"`);
    expect(page).not.toContain('data-copy-command');
  });
});

describe('a taken send', () => {
  it('keeps no body in the log, and its page shows the payload its notification keeps, as curl too', async () => {
    const { browser, projectId, sent } = await projectWithRequests();
    const logged = await dashboard.tidings.admin.getRequest(projectId, sent.requestId);
    expect(logged).toMatchObject({ status: 201, request_body: null, response_body: null, recipient: 'user_8' });
    const html = await (await browser.get(`/dashboard/projects/${projectId}/requests/${sent.requestId}`)).text();
    expect(html).toContain('data-field="sent-payload"');
    expect(html).toContain('&quot;recipient&quot;: &quot;user_8&quot;');
    expect(html).toContain('&quot;ttl&quot;: 86400');
    const curl = /<code id="request-curl" data-field="curl">(.*?)<\/code>/s.exec(html)?.[1] ?? '';
    expect(curl).toContain(
      '--data-raw &#39;{&quot;recipient&quot;:&quot;user_8&quot;,&quot;title&quot;:&quot;Hello&quot;',
    );
  });
});
