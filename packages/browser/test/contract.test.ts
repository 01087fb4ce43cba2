/**
 * The SDK against the real core, in process: the protocol as the server implements it, not as
 * the fake server imagines it. `fetch` hands each request to `tidings.fetch`, as a host adapter
 * would; the real Chromium tests come on top of this.
 */
import { createTidings, silentLogger, type Tidings } from '@tidings/core';
import { createSqliteStore } from '@tidings/store-sqlite';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { connect } from '../src/connect.js';
import type { ConnectOptions } from '../src/options.js';
import { storageKey } from '../src/stored-state.js';
import type { TidingsConnection, TidingsNotification, TidingsStatus } from '../src/types.js';
import { memoryStorage } from './memory-storage.js';

const baseUrl = 'http://tidings.test';

let tidings: Tidings;
let store: ReturnType<typeof createSqliteStore>;
let liveKey: string;
let projectId: string;
const connections: TidingsConnection[] = [];

beforeEach(async () => {
  store = createSqliteStore({ path: ':memory:' });
  tidings = createTidings({ store, logger: silentLogger, heartbeatMs: 200, retryMs: 250, sweepIntervalMs: 0 });
  const account = await tidings.admin.createAccount({ email: 'owner@example.com', verified: true });
  const project = await tidings.admin.createProject({ accountId: account.id, name: 'Main' });
  projectId = project.id;
  liveKey = (await tidings.admin.createKey({ projectId, mode: 'live' })).key!;
});

afterEach(async () => {
  for (const connection of connections.splice(0)) connection.close();
  await tidings.close();
  await store.close();
});

/** `fetch` over the instance; aborting the signal errors the body, as a browser's fetch does. */
const serverFetch: typeof fetch = async (input, init = {}) => {
  const response = await tidings.fetch(new Request(String(input), init), { clientAddress: '203.0.113.7' });
  if (!response.body || !init.signal) return response;
  const body = response.body.pipeThrough(new TransformStream(), { signal: init.signal });
  return new Response(body, { status: response.status, headers: response.headers });
};

const api = async (path: string, init: RequestInit = {}) => {
  const response = await tidings.fetch(
    new Request(`${baseUrl}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${liveKey}`, 'Content-Type': 'application/json' },
    }),
  );
  return { status: response.status, body: await response.json() };
};
const send = (title: string) =>
  api('/v1/notifications', { method: 'POST', body: JSON.stringify({ recipient: 'user_1', title }) });
const attempts = async (notificationId: string) =>
  (await api(`/v1/notifications/${notificationId}`)).body.attempts as {
    browser_id: string;
    status: string;
    reason: string | null;
  }[];

async function start(options: Partial<ConnectOptions> = {}) {
  const token = (await tidings.createConnectToken({ projectId, recipient: 'user_1' })).token;
  const received: TidingsNotification[] = [];
  const statuses: [TidingsStatus, unknown][] = [];
  const connection = connect({
    baseUrl,
    token,
    fetch: serverFetch,
    onNotification: (notification) => received.push(notification),
    onStatus: (status, detail) => statuses.push([status, detail]),
    storage: memoryStorage(),
    environment: { host: null },
    ...options,
  });
  connections.push(connection);
  const opened = () => vi.waitFor(() => expect(statuses.at(-1)?.[0]).toBe('open'));
  return { connection, received, statuses, opened, token };
}

describe('the SDK against the core', () => {
  it('receives a notification and its delivered receipt makes the attempt delivered', async () => {
    const { connection, received, opened, statuses } = await start();
    await opened();
    expect(statuses.at(-1)).toEqual(['open', { browserId: connection.browserId(), resumed: false, transport: 'sse' }]);
    const sent = await send('Hello');
    expect(sent.status).toBe(201);
    await vi.waitFor(() => expect(received.map((item) => item.title)).toEqual(['Hello']));
    expect(received[0]).toMatchObject({ attempt_id: sent.body.attempts[0].id, notification_id: sent.body.id });
    await vi.waitFor(async () => expect((await attempts(sent.body.id))[0]?.status).toBe('delivered'));

    connection.displayed(received[0]!.attempt_id);
    connection.clicked(received[0]!.attempt_id);
    await vi.waitFor(async () => {
      const read = await api(`/v1/notifications/${sent.body.id}`);
      expect(read.body.attempts[0]).toMatchObject({ displayed_at: expect.any(String), clicked_at: expect.any(String) });
    });
  });

  it('resumes the same browser after close(), and gets what was sent meanwhile', async () => {
    const storage = memoryStorage();
    const first = await start({ storage });
    await first.opened();
    const browserId = first.connection.browserId();
    first.connection.close();

    const sent = await send('While away');
    const second = await start({ storage });
    await second.opened();
    expect(second.statuses.at(-1)).toEqual(['open', { browserId, resumed: true, transport: 'sse' }]);
    await vi.waitFor(() => expect(second.received.map((item) => item.title)).toEqual(['While away']));
    await vi.waitFor(async () => expect((await attempts(sent.body.id))[0]?.status).toBe('delivered'));
  });

  it('disconnect() fails open attempts, and the stored position of that browser is then answered 204', async () => {
    const storage = memoryStorage();
    const first = await start({ storage, autoDelivered: false });
    await first.opened();
    const saved = storage.getItem(storageKey(baseUrl));
    const sent = await send('Never acknowledged');
    await vi.waitFor(() => expect(first.received).toHaveLength(1));
    first.connection.disconnect();
    await vi.waitFor(async () =>
      expect((await attempts(sent.body.id))[0]).toMatchObject({ status: 'failed', reason: 'browser_disconnected' }),
    );

    storage.setItem(storageKey(baseUrl), saved!); // a second tab that still had the browser
    const second = await start({ storage });
    await vi.waitFor(() =>
      expect(second.statuses.at(-1)).toEqual(['closed', { reason: 'disconnected', error: undefined }]),
    );
    expect(storage.getItem(storageKey(baseUrl))).toBeNull();
  });

  it('stops with PROJECT_SUSPENDED when the project is suspended under an open stream', async () => {
    const errors: string[] = [];
    const { opened, statuses } = await start({ onError: (error) => errors.push(error.code) });
    await opened();
    await tidings.admin.suspendProject(projectId);
    await vi.waitFor(() =>
      expect(statuses.at(-1)).toMatchObject([
        'closed',
        { reason: 'error', error: { code: 'PROJECT_SUSPENDED', status: 403 } },
      ]),
    );
    expect(errors.at(-1)).toBe('PROJECT_SUSPENDED');
  });

  it('polls: registers, then receives and acknowledges', async () => {
    const { connection, received, opened, statuses } = await start({ transport: 'poll', pollIntervalMs: 1000 });
    await opened();
    expect(statuses.at(-1)).toMatchObject(['open', { transport: 'poll', resumed: false }]);
    const sent = await send('Polled');
    await vi.waitFor(() => expect(received.map((item) => item.title)).toEqual(['Polled']), { timeout: 3000 });
    await vi.waitFor(async () => expect((await attempts(sent.body.id))[0]?.status).toBe('delivered'));
    expect(connection.browserId()).toMatch(/^brw_/);
  });
});
