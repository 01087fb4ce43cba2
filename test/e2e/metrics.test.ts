import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assertBuilt,
  createProjectWithKeys,
  type ServeProcess,
  startServe,
} from '@tidings/test-support/cli-process.js';
import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExposition, type Scrape, total } from '../support/exposition.js';

/**
 * `tidings serve --metrics` as an operator runs it: real traffic on the API's listener, then
 * `/metrics` scraped on the listener of its own, twice, through a strict reader of the format.
 */
let dir: string;
let server: ServeProcess;
let metricsUrl: string;
let liveKey: string;
let testKey: string;
const secretsSeen: string[] = [];

beforeAll(async () => {
  assertBuilt();
  dir = await mkdtemp(join(tmpdir(), 'tidings-metrics-'));
  const db = join(dir, 'tidings.db');
  ({ liveKey, testKey } = await createProjectWithKeys(db));
  // A small limit from the config file, so that a 429 comes within a few requests.
  await writeFile(join(dir, 'config.json'), JSON.stringify({ limits: { invalidKeyPerIp: 3 } }));
  server = await startServe([
    '--db',
    db,
    '--port',
    '0',
    '--metrics',
    '127.0.0.1:0',
    '--config',
    join(dir, 'config.json'),
  ]);
  metricsUrl = /^metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)$/m.exec(
    await server.waitForStdout(/^metrics on \S+$/m),
  )![1]!;
});

afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  await rm(dir, { recursive: true, force: true });
});

function api(path: string, init: RequestInit & { key?: string; json?: unknown } = {}) {
  const headers = new Headers(init.headers);
  if (init.key) headers.set('Authorization', `Bearer ${init.key}`);
  const body = init.json === undefined ? init.body : JSON.stringify(init.json);
  if (init.json !== undefined) headers.set('Content-Type', 'application/json');
  return fetch(`${server.url}${path}`, { ...init, headers, body });
}

async function scrape(): Promise<{ text: string; scrape: Scrape }> {
  const response = await fetch(metricsUrl);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  return { text, scrape: parseExposition(text) };
}

/** A browser of `recipient` with its stream open, as a page connects. */
async function connect(recipient: string) {
  const token = await (await api('/v1/connect-tokens', { method: 'POST', key: liveKey, json: { recipient } })).json();
  const stream = readEvents(await fetch(token.connect_url, { headers: { Accept: 'text/event-stream' } }));
  const ready = JSON.parse((await stream.next('ready')).data);
  secretsSeen.push(token.token, ready.browser_secret);
  return { stream, ready };
}

/**
 * One round of every kind of traffic: a live send delivered over a stream with its receipt, a
 * test send, a read, refused keys (401, then 429 once the per-IP limit is reached) and a wrong
 * browser secret (401). Returns the browser's stream, still open.
 */
async function traffic(recipient: string) {
  const browser = await connect(recipient);
  const live = await api('/v1/notifications', { method: 'POST', key: liveKey, json: { recipient, title: 'Live' } });
  expect(live.status).toBe(201);
  const sent = await live.json();
  const event = JSON.parse((await browser.stream.next('notification')).data);
  const receipt = await fetch(`${server.url}/v1/events`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/plain' },
    body: JSON.stringify({
      browser_id: browser.ready.browser_id,
      browser_secret: browser.ready.browser_secret,
      events: [{ type: 'delivered', attempt_id: event.attempt_id }],
    }),
  });
  expect(receipt.status).toBe(202);
  const test = await api('/v1/notifications', { method: 'POST', key: testKey, json: { recipient, title: 'Test' } });
  expect(test.status).toBe(201);
  const read = await (await api(`/v1/notifications/${sent.id}`, { key: testKey })).json();
  expect(read.attempts[0].status).toBe('delivered');
  secretsSeen.push(sent.id, event.attempt_id, browser.ready.browser_id);

  const refused = [];
  for (let i = 0; i < 4; i++) refused.push((await api(`/v1/notifications/${sent.id}`, { key: 'sk_live_nope' })).status);
  expect(refused.at(-1)).toBe(429);
  const wrongSecret = await fetch(`${server.url}/v1/events`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      browser_id: browser.ready.browser_id,
      browser_secret: 'bs_00000000000000000000000000000000',
      events: [{ type: 'delivered', attempt_id: event.attempt_id }],
    }),
  });
  expect(wrongSecret.status).toBe(401);
  return browser;
}

/** Every metric the issue names, as [family, labels that must be on a moving sample]. */
const moving: [string, Record<string, string>][] = [
  ['tidings_http_requests_total', { method: 'POST', route: '/v1/notifications', status: '201' }],
  ['tidings_http_requests_total', { method: 'GET', route: '/v1/notifications/{id}', status: '200' }],
  ['tidings_http_requests_total', { method: 'GET', route: '/v1/notifications/{id}', status: '429' }],
  ['tidings_http_requests_total', { method: 'POST', route: '/v1/events', status: '401' }],
  ['tidings_http_requests_total', { method: 'GET', route: '/v1/connect/{token}', status: '200' }],
  ['tidings_http_request_duration_seconds', { route: '/v1/notifications' }],
  ['tidings_notifications_sent_total', { mode: 'live' }],
  ['tidings_notifications_sent_total', { mode: 'test' }],
  ['tidings_attempts_created_total', { mode: 'live' }],
  ['tidings_attempts_ended_total', { status: 'delivered', reason: 'none' }],
  ['tidings_attempts_ended_total', { status: 'accepted', reason: 'none' }],
  ['tidings_limiter_refusals_total', { scope: 'ip_invalid_key' }],
  ['tidings_store_operation_duration_seconds', { operation: 'createNotification', outcome: 'ok' }],
  ['tidings_store_operation_duration_seconds', { operation: 'applyReceipts', outcome: 'ok' }],
];

describe('tidings serve --metrics', () => {
  it('serves every metric on its own listener, and each moves with real traffic', async () => {
    const first = await traffic('alice');
    // The first round met no 429 on an earlier request: its 401s are the API's.
    const a = await scrape();
    expect(total(a.scrape, 'tidings_http_requests_total', { route: '/v1/notifications/{id}', status: '401' })).toBe(3);
    expect(total(a.scrape, 'tidings_open_streams')).toBe(1);

    const second = await traffic('bob');
    await first.stream.cancel();
    await second.stream.cancel();
    await expect.poll(async () => total((await scrape()).scrape, 'tidings_open_streams'), { timeout: 5000 }).toBe(0);
    const b = await scrape();

    for (const [family, labels] of moving) {
      const before = total(a.scrape, family, labels);
      const after = total(b.scrape, family, labels);
      expect({ family, labels, before: before! > 0 }).toEqual({ family, labels, before: true });
      expect({ family, labels, moved: after! > before! }).toEqual({ family, labels, moved: true });
    }
    for (const lag of ['nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds']) {
      expect(a.scrape.types.get(lag)).toBe('gauge');
      expect(total(b.scrape, lag)).toBeGreaterThan(0);
    }
    expect(total(b.scrape, 'nodejs_eventloop_lag_seconds')).not.toBe(total(a.scrape, 'nodejs_eventloop_lag_seconds'));

    // Labels name routes, never paths: no token, secret or id reaches the exposition.
    for (const secret of secretsSeen) expect(b.text).not.toContain(secret);
    expect(b.text).not.toMatch(/\b(ct|ntf|brw|att|bs|sk_live|sk_test)_[0-9A-Za-z]{10,}/);
  });

  it('answers nothing but GET /metrics there, and nothing of the API', async () => {
    const base = metricsUrl.replace(/\/metrics$/, '');
    expect((await fetch(`${base}/v1/notifications`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(metricsUrl, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  });

  it('closes the metrics listener with the server on SIGTERM', async () => {
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    await expect(fetch(metricsUrl)).rejects.toThrow();
  });
});
