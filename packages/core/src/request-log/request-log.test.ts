import { createServer } from 'node:http';
import { serveNode } from '@tidings/core/node';
import { createSqliteStore } from '@tidings/store-sqlite';
import { listening } from '@tidings/test-support/node-servers.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness } from '../../test/harness.js';
import {
  createTidings,
  inbox,
  READ_COUNT_PATH,
  type RequestLogObject,
  requestLog,
  silentLogger,
  type Tidings,
} from '../index.js';
import type { Store } from '../ports/store.js';
import { newId } from '../shared/ids.js';
import { until } from '../testing/until.js';

const DAY_MS = 86_400_000;

/**
 * The request log as a customer's back end meets it: requests made over real HTTP to a real
 * server, refused ones included, found again by their ids, with no secret kept.
 */
let store: Store;
let tidings: Tidings;
let base: string;
let projectId: string;
let liveKey: string;
let testKey: string;
let liveKeyId: string;

async function start(logOptions: { flushIntervalMs: number }) {
  store = createSqliteStore({ path: ':memory:' });
  tidings = createTidings({
    store,
    logger: silentLogger,
    sweepIntervalMs: 0,
    features: [inbox(), requestLog(logOptions)],
  });
  const account = await tidings.admin.createAccount({ email: 'owner@example.com', verified: true });
  projectId = (await tidings.admin.createProject({ accountId: account.id, name: 'Main' })).id;
  const live = await tidings.admin.createKey({ projectId, mode: 'live' });
  liveKey = live.key!;
  liveKeyId = live.id;
  testKey = (await tidings.admin.createKey({ projectId, mode: 'test' })).key!;
  base = await listening(
    createServer((req, res) => {
      void serveNode(tidings, req, res, { clientAddress: req.socket.remoteAddress ?? '' });
    }),
  );
}

async function post(path: string, key: string | null, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      ...(key === null ? {} : { Authorization: `Bearer ${key}` }),
      'Content-Type': 'application/json',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, requestId: response.headers.get('Request-Id')!, json: await response.json() };
}

/** The entries a search finds, once the writer has written them. */
async function found(search: string, count = 1): Promise<RequestLogObject[]> {
  return until(async () => (await tidings.admin.listRequests(projectId, { search })).requests, {
    accept: (requests) => requests.length >= count,
    what: `${count} logged request(s) found by ${search}`,
  });
}

describe('the request log over HTTP', () => {
  beforeEach(async () => {
    await start({ flushIntervalMs: 10 });
  });
  afterEach(async () => {
    await tidings.close();
    await store.close();
  });

  it('keeps a 409 NO_CONNECTED_BROWSER, found by its request id and by its Idempotency-Key, bodies and all', async () => {
    const sent = await post(
      '/v1/notifications',
      liveKey,
      { recipient: 'nobody-home', title: 'Your order shipped' },
      { 'Idempotency-Key': 'order-1042' },
    );
    expect(sent.status).toBe(409);
    const [byId] = await found(sent.requestId);
    expect(byId).toMatchObject({
      object: 'request',
      id: sent.requestId,
      method: 'POST',
      path: '/v1/notifications',
      status: 409,
      code: 'NO_CONNECTED_BROWSER',
      key_prefix: liveKey.slice(0, 12),
      mode: 'live',
      idempotency_key: 'order-1042',
      recipient: 'nobody-home',
      notification_ids: [],
    });
    expect(byId!.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(byId!.duration_ms).toBeGreaterThan(0);
    expect(JSON.parse(byId!.request_body!.text)).toEqual({ recipient: 'nobody-home', title: 'Your order shipped' });
    expect(JSON.parse(byId!.response_body!.text)).toMatchObject({ code: 'NO_CONNECTED_BROWSER', status: 409 });
    const byKey = await found('order-1042');
    expect(byKey.map((entry) => entry.id)).toEqual([sent.requestId]);
    expect(await tidings.admin.getRequest(projectId, sent.requestId)).toEqual(byId);
    expect(JSON.stringify(byId)).not.toContain(liveKey);
  });

  it('keeps a 400 VALIDATION_FAILED sent as a script would, with the body as sent', async () => {
    const sent = await post('/v1/notifications', testKey, '{"recipient":"user-1","colour":"red"}', {
      'Idempotency-Key': '"quoted-key"',
    });
    expect(sent.status).toBe(400);
    const [entry] = await found(sent.requestId);
    expect(entry).toMatchObject({ status: 400, code: 'VALIDATION_FAILED', mode: 'test', recipient: 'user-1' });
    expect(entry!.request_body).toEqual({ text: '{"recipient":"user-1","colour":"red"}', truncated: false });
    expect(JSON.parse(entry!.response_body!.text).errors.length).toBeGreaterThan(0);
    expect((await found('quoted-key')).map((kept) => kept.id)).toEqual([sent.requestId]);
  });

  it('keeps a connect token’s answer without the token, and a send found by its notification', async () => {
    const minted = await post('/v1/connect-tokens', liveKey, { recipient: 'user-2' });
    expect(minted.status).toBe(201);
    const token = minted.json.token as string;
    const [entry] = await found(minted.requestId);
    expect(entry!.recipient).toBe('user-2');
    expect(JSON.parse(entry!.response_body!.text)).toMatchObject({
      object: 'connect_token',
      token: '[redacted]',
      connect_url: '[redacted]',
      recipient: 'user-2',
    });
    expect(JSON.stringify(entry)).not.toContain(token);
    expect(JSON.stringify(entry)).not.toContain(token.slice(3));

    // The browser's own requests (connecting, polling) are not the back end's: none is logged.
    const connected = await fetch(`${base}/v1/connect/${token}`, { method: 'POST' });
    expect(connected.status).toBe(201);
    const sent = await post('/v1/notifications', liveKey, { recipient: 'user-2', title: 'Hello' });
    expect(sent.status).toBe(201);
    const read = await fetch(`${base}/v1/notifications/${sent.json.id}?fields=all`, {
      headers: { Authorization: `Bearer ${liveKey}` },
    });
    expect(read.status).toBe(200);
    const missing = await fetch(`${base}/v1/notifications/ntf_01kekwe4g0ckbqvjr81hfw7rzj`, {
      headers: { Authorization: `Bearer ${liveKey}` },
    });
    expect(missing.status).toBe(404);
    const about = await found(sent.json.id as string, 2);
    // The send is kept without its answer (the notification, whose own page shows it); the
    // successful read is counted, in one entry per key and flush that names what was read.
    expect(about.map((kept) => [kept.method, kept.path, kept.status, kept.response_body])).toEqual([
      ['GET', READ_COUNT_PATH, 200, expect.objectContaining({ truncated: false })],
      ['POST', '/v1/notifications', 201, null],
    ]);
    expect(JSON.parse(about[0]!.response_body!.text)).toMatchObject({
      object: 'read_count',
      reads: 1,
      notification_ids: [sent.json.id],
    });
    expect(about[1]!.notification_ids).toEqual([sent.json.id]);
    expect(about[1]!.recipient).toBe('user-2');
    // A refused read is kept one by one, as every refusal is.
    const [refusedRead] = await found('ntf_01kekwe4g0ckbqvjr81hfw7rzj');
    expect(refusedRead).toMatchObject({ method: 'GET', status: 404, code: 'NOT_FOUND' });
    expect(await found('user-2', 2)).toHaveLength(2);
    const all = (await tidings.admin.listRequests(projectId)).requests;
    expect(all.map((kept) => kept.path)).not.toContain(`/v1/connect/${token}`);
    expect(all.some((kept) => kept.path.startsWith('/v1/connect/'))).toBe(false);
  });

  it('keeps a revoked key’s 401 for its project, and nothing of a key no project has', async () => {
    await tidings.admin.revokeKey(liveKeyId);
    const revoked = await post('/v1/notifications', liveKey, { recipient: 'user-1', title: 'Hi' });
    expect(revoked.status).toBe(401);
    const unknown = await post('/v1/notifications', `sk_live_${'Z'.repeat(32)}`, { recipient: 'user-1', title: 'Hi' });
    expect(unknown.status).toBe(401);
    const [entry] = await found(revoked.requestId);
    expect(entry).toMatchObject({ status: 401, code: 'UNAUTHORIZED', key_prefix: liveKey.slice(0, 12) });
    // Refused before its route read the body: read for the log alone, so that it names its recipient.
    expect(entry!.request_body).toEqual({ text: '{"recipient":"user-1","title":"Hi"}', truncated: false });
    expect(entry!.recipient).toBe('user-1');
    expect(revoked.json.detail).toContain(`This API key (${liveKey.slice(0, 12)}…) was revoked`);
    expect(unknown.json.detail).not.toContain('revoked');
    await tidings.close();
    expect(
      await store.listRequestLog({
        projectId,
        statusClass: null,
        mode: null,
        search: { requestId: unknown.requestId },
        limit: 10,
        startingAfter: null,
      }),
    ).toEqual({ entries: [], hasMore: false });
  });

  it('refuses a bad filter of the log with a problem', async () => {
    await expect(tidings.admin.listRequests(projectId, { status: '3xx' as never })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    await expect(tidings.admin.listRequests(projectId, { startingAfter: 'ntf_1' })).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
    await expect(tidings.admin.getRequest(projectId, 'req_nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('the request log at shutdown', () => {
  it('writes what it holds when the instance closes, though its interval has not come', async () => {
    await start({ flushIntervalMs: 3_600_000 });
    const sent = await post('/v1/notifications', testKey, { recipient: 'nobody', title: 'Hi' });
    expect(sent.status).toBe(409);
    expect(await store.getRequestLogEntry({ projectId, requestId: sent.requestId })).toBeNull();
    await tidings.close();
    expect(await store.getRequestLogEntry({ projectId, requestId: sent.requestId })).toMatchObject({
      status: 409,
      code: 'NO_CONNECTED_BROWSER',
    });
    await store.close();
  });
});

describe('the request log’s retention', () => {
  it('is deleted by the sweep once past the deployment’s retention', async () => {
    const h = await createHarness({ extra: { features: [inbox(), requestLog({ retentionDays: 7 })] } });
    const now = h.clock.now();
    const entry = (requestId: string, createdAt: number) => ({
      requestId,
      projectId: h.project.id,
      method: 'GET',
      path: '/v1/notifications/ntf_x',
      status: 404,
      code: 'NOT_FOUND',
      keyPrefix: h.liveKey.slice(0, 12),
      mode: 'live' as const,
      idempotencyKey: null,
      notificationIds: [],
      recipient: null,
      createdAt,
      durationMs: 1,
      requestBody: null,
      responseBody: null,
    });
    const old = entry(newId('req', now - 8 * DAY_MS), now - 8 * DAY_MS);
    const recent = entry(newId('req', now - 6 * DAY_MS), now - 6 * DAY_MS);
    await h.store.appendRequestLog([old, recent]);
    await h.tidings.sweep();
    expect((await h.tidings.admin.listRequests(h.project.id)).requests.map((kept) => kept.id)).toEqual([
      recent.requestId,
    ]);
    await h.close();
  });
});
