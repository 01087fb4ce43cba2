import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assertBuilt,
  runTidings,
  type ServeProcess,
  startServe,
  tidingsJson,
} from '@tidings/test-support/cli-process.js';
import { conformingFetch } from '@tidings/test-support/openapi-conformance.js';
import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The standalone server as a new user meets it: a real `tidings serve` process on a SQLite
 * file, driven over HTTP, with the operator CLI acting on the same file while it runs.
 */
let dir: string;
let db: string;
let server: ServeProcess;
let projectId: string;
let liveKey: string;
let testKey: string;

beforeAll(async () => {
  assertBuilt();
  dir = await mkdtemp(join(tmpdir(), 'tidings-e2e-'));
  db = join(dir, 'tidings.db');
  const account = await tidingsJson<{ id: string }>(['account', 'create', '--email', 'new@example.com', '--db', db]);
  const refused = await runTidings([
    'project',
    'create',
    '--account',
    account.id,
    '--name',
    'App',
    '--db',
    db,
    '--json',
  ]);
  expect(refused.code).toBe(1);
  expect(JSON.parse(refused.stdout).code).toBe('EMAIL_NOT_VERIFIED');
  await tidingsJson(['account', 'verify', account.id, '--db', db]);
  projectId = (
    await tidingsJson<{ id: string }>(['project', 'create', '--account', account.id, '--name', 'App', '--db', db])
  ).id;
  liveKey = (
    await tidingsJson<{ key: string }>(['key', 'create', '--project', projectId, '--mode', 'live', '--db', db])
  ).key;
  testKey = (
    await tidingsJson<{ key: string }>(['key', 'create', '--project', projectId, '--mode', 'test', '--db', db])
  ).key;
  await writeFile(join(dir, 'config.json'), JSON.stringify({ staleBrowserMs: 120_000 }));
  server = await startServe(['--db', db, '--port', '0', '--config', join(dir, 'config.json')]);
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
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers.set('Content-Type', 'application/json');
  }
  return conformingFetch(`${server.url}${path}`, { ...init, headers, body });
}

async function connect(recipient: string, key = liveKey) {
  const token = await (await api('/v1/connect-tokens', { method: 'POST', key, json: { recipient } })).json();
  expect(token.connect_url).toBe(`${server.url}/v1/connect/${token.token}`);
  const stream = readEvents(await conformingFetch(token.connect_url, { headers: { Accept: 'text/event-stream' } }));
  const ready = JSON.parse((await stream.next('ready')).data);
  return { token: token.token as string, stream, ready };
}

describe('tidings serve over real HTTP', () => {
  it('a live send reaches the open stream, and its receipt makes the attempt delivered', async () => {
    const { stream, ready } = await connect('alice');
    const response = await api('/v1/notifications', {
      method: 'POST',
      key: liveKey,
      json: { recipient: 'alice', title: 'Hi' },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('request-id')).toMatch(/^req_/);
    expect(response.headers.get('ratelimit-policy')).toBe('"key";q=60;w=60');
    const sent = await response.json();
    const event = JSON.parse((await stream.next('notification')).data);
    expect(event).toMatchObject({ notification_id: sent.id, attempt_id: sent.attempts[0].id, title: 'Hi' });

    const receipt = await conformingFetch(`${server.url}/v1/events`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', Origin: 'https://shop.example' },
      body: JSON.stringify({
        browser_id: ready.browser_id,
        browser_secret: ready.browser_secret,
        events: [{ type: 'delivered', attempt_id: event.attempt_id }],
      }),
    });
    expect(receipt.status).toBe(202);
    expect(receipt.headers.get('access-control-allow-origin')).toBe('*');
    const read = await (await api(`/v1/notifications/${sent.id}`, { key: testKey })).json();
    expect(read.status).toBe('completed');
    expect(read.attempts[0]).toMatchObject({ status: 'delivered', final: true });
    expect(read.attempts[0].sent_at).not.toBeNull();
    await stream.cancel();
  });

  it('test keys work from a browser origin, live keys get 403; idempotent retries replay', async () => {
    const { stream } = await connect('bob');
    const origin = { Origin: 'https://shop.example' };
    const body = { recipient: 'bob', title: 'T' };
    expect((await api('/v1/notifications', { method: 'POST', key: liveKey, json: body, headers: origin })).status).toBe(
      403,
    );
    const first = await api('/v1/notifications', {
      method: 'POST',
      key: testKey,
      json: body,
      headers: { ...origin, 'Idempotency-Key': 'e2e-1' },
    });
    expect(first.status).toBe(201);
    const replay = await api('/v1/notifications', {
      method: 'POST',
      key: testKey,
      json: body,
      headers: { 'Idempotency-Key': 'e2e-1' },
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(await first.text());
    const mismatch = await api('/v1/notifications', {
      method: 'POST',
      key: liveKey,
      json: body,
      headers: { 'Idempotency-Key': 'e2e-1' },
    });
    expect(mismatch.status).toBe(422);
    await stream.cancel();
  });

  it('no bad input yields a 5xx or stops the server', async () => {
    const cases: [string, RequestInit][] = [
      [
        '/v1/notifications',
        {
          method: 'POST',
          body: '{',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${testKey}` },
        },
      ],
      [
        '/v1/notifications',
        {
          method: 'POST',
          body: 'x'.repeat(1_000_000),
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${testKey}` },
        },
      ],
      [
        '/v1/notifications',
        {
          method: 'POST',
          body: '[]',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${testKey}` },
        },
      ],
      [
        '/v1/notifications',
        { method: 'POST', body: '"str"', headers: { 'Content-Type': 'text/html', Authorization: `Bearer ${testKey}` } },
      ],
      [
        '/v1/notifications',
        {
          method: 'POST',
          body: '\u0000\uffff',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${testKey}` },
        },
      ],
      ['/v1/notifications/%zz', { headers: { Authorization: `Bearer ${testKey}` } }],
      ['/v1/notifications/ntf_%00', { headers: { Authorization: `Bearer ${testKey}` } }],
      ['/v1/connect/%zz', {}],
      [
        '/v1/connect/ct_x',
        { method: 'POST', body: '{"browser_id":1}', headers: { 'Content-Type': 'application/json' } },
      ],
      ['/v1/events', { method: 'POST', body: 'null', headers: { 'Content-Type': 'text/plain' } }],
      [
        '/v1/events',
        {
          method: 'POST',
          body: '{"browser_id":"brw_x","browser_secret":{"a":1},"events":"no"}',
          headers: { 'Content-Type': 'text/plain' },
        },
      ],
      [
        '/v1/browsers/%E0%A4%A/disconnect',
        { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } },
      ],
      [
        '/v1/browsers/brw_x/disconnect',
        { method: 'POST', body: '12', headers: { 'Content-Type': 'application/json' } },
      ],
      ['/v1/notifications', { method: 'PUT' }],
      ['/v1/notifications', { method: 'POST', headers: { Authorization: `Bearer ${'a'.repeat(10_000)}` } }],
      [
        '/v1/notifications',
        { method: 'POST', headers: { Authorization: `Bearer ${testKey}`, 'Idempotency-Key': 'x'.repeat(4000) } },
      ],
    ];
    for (const [path, init] of cases) {
      const response = await conformingFetch(`${server.url}${path}`, init);
      expect(response.status, `${init.method ?? 'GET'} ${path}`).toBeGreaterThanOrEqual(400);
      expect(response.status, `${init.method ?? 'GET'} ${path}`).toBeLessThan(500);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect((await response.json()).code).toMatch(/^[A-Z_]+$/);
    }
    expect((await conformingFetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('the 61st request of a key within 60 s is refused with Retry-After', async () => {
    const key = (
      await tidingsJson<{ key: string }>(['key', 'create', '--project', projectId, '--mode', 'test', '--db', db])
    ).key;
    const statuses = await Promise.all(
      Array.from({ length: 61 }, () => api('/v1/notifications/ntf_00000000000000000000000000', { key }).then((r) => r)),
    );
    const limited = statuses.filter((r) => r.status === 429);
    expect(limited).toHaveLength(1);
    expect(statuses.filter((r) => r.status === 404)).toHaveLength(60);
    const retryAfter = Number(limited[0]!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(59);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('a key revoked with the CLI while the server runs fails on the next request', async () => {
    const created = await tidingsJson<{ id: string; key: string }>([
      'key',
      'create',
      '--project',
      projectId,
      '--mode',
      'test',
      '--db',
      db,
    ]);
    expect((await api('/v1/notifications/ntf_00000000000000000000000000', { key: created.key })).status).toBe(404);
    await tidingsJson(['key', 'revoke', created.id, '--db', db]);
    expect((await api('/v1/notifications/ntf_00000000000000000000000000', { key: created.key })).status).toBe(401);
  });

  it('a project suspended with the CLI is refused at once and its streams close; resuming restores it', async () => {
    const { stream } = await connect('carol', testKey);
    await tidingsJson(['project', 'suspend', projectId, '--db', db]);
    const refused = await api('/v1/notifications', {
      method: 'POST',
      key: liveKey,
      json: { recipient: 'carol', title: 'x' },
    });
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe('PROJECT_SUSPENDED');
    await stream.end(5000);
    await tidingsJson(['project', 'resume', projectId, '--db', db]);
    const again = await connect('carol', testKey);
    expect(
      (await api('/v1/notifications', { method: 'POST', key: liveKey, json: { recipient: 'carol', title: 'x' } }))
        .status,
    ).toBe(201);
    await again.stream.next('notification');
    await again.stream.cancel();
  });

  it('usage counts live sends only; SIGTERM closes open streams and exits 0', async () => {
    const usage = await tidingsJson<{ total: { notifications: number } }>([
      'usage',
      '--project',
      projectId,
      '--db',
      db,
    ]);
    expect(usage.total.notifications).toBe(2);
    const { stream } = await connect('dave');
    server.child.kill('SIGTERM');
    await stream.end(5000);
    expect(await server.exited).toBe(0);
  });
});
