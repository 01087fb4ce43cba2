/**
 * enablePush() and disablePush() against the real core, in process: the subscription as the
 * server's routes take it, and their refusals as the SDK reports them. The browser's push API is
 * the in-memory one of fake-push.ts; the Chromium test (test/browser/push.test.ts) runs the rest.
 */
import { createECDH, randomBytes } from 'node:crypto';
import { createTidings, inbox, type PushOptions, requestLog, silentLogger, type Tidings } from '@tidings/core';
import { webPush } from '@tidings/core/node';
import { createSqliteStore } from '@tidings/store-sqlite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connect } from '../src/connect.js';
import type { TidingsError } from '../src/errors.js';
import type { TidingsConnection, TidingsStatus } from '../src/types.js';
import { fakePlatform } from './fake-push.js';
import { memoryStorage } from './memory-storage.js';

const baseUrl = 'http://tidings.test';
const open: { tidings: Tidings; store: ReturnType<typeof createSqliteStore>; connection: TidingsConnection }[] = [];

afterEach(async () => {
  for (const { tidings, store, connection } of open.splice(0)) {
    connection.close();
    await tidings.close();
    await store.close();
  }
});

/** A real P-256 public key and auth secret, as a browser's subscription carries them. */
function subscriptionKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}

/** A core with `push` (or without), and a connection of the SDK to it that is open. */
async function connected(push?: PushOptions) {
  const store = createSqliteStore({ path: ':memory:' });
  const tidings = createTidings({
    store,
    logger: silentLogger,
    sweepIntervalMs: 0,
    // The routes are what is tried here: the instance runs no jobs.
    jobs: false,
    features: [inbox(), requestLog(), ...(push ? [webPush(push)] : [])],
  });
  const account = await tidings.admin.createAccount({ email: 'owner@example.com', verified: true });
  const project = await tidings.admin.createProject({ accountId: account.id, name: 'Main' });
  const { token } = await tidings.createConnectToken({ projectId: project.id, recipient: 'user_1' });
  const serverFetch: typeof fetch = async (input, init = {}) => {
    const response = await tidings.fetch(new Request(String(input), init), { clientAddress: '203.0.113.7' });
    if (!response.body || !init.signal) return response;
    const body = response.body.pipeThrough(new TransformStream(), { signal: init.signal });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  const platform = fakePlatform({ keys: subscriptionKeys() });
  const statuses: TidingsStatus[] = [];
  const connection = connect({
    baseUrl,
    token,
    fetch: serverFetch,
    onNotification: () => {},
    onStatus: (status) => statuses.push(status),
    storage: memoryStorage(),
    environment: { host: platform.host },
  });
  open.push({ tidings, store, connection });
  await vi.waitFor(() => expect(statuses).toContain('open'));
  return { tidings, store, connection, platform };
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('resolved');
    },
    (error: TidingsError) => error,
  );

describe('Web Push against the core', () => {
  it('saves the subscription for this browser with the deployment key, and removes it again', async () => {
    const { tidings, store, connection, platform } = await connected({
      vapidSubject: 'mailto:ops@example.com',
      allowedHosts: ['push.example.net'],
    });
    const saved = await connection.enablePush();
    expect(saved).toEqual({
      object: 'push_subscription',
      browser_id: connection.browserId(),
      endpoint_host: 'push.example.net',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      expires_at: null,
    });
    const deploymentKey = (await tidings.admin.getVapidKey()).public_key;
    expect(Buffer.from(platform.subscription()!.options.applicationServerKey).toString('base64url')).toBe(
      deploymentKey,
    );
    expect(await store.getPushSubscription(connection.browserId()!)).not.toBeNull();

    await connection.disablePush();
    expect(await store.getPushSubscription(connection.browserId()!)).toBeNull();
  });

  it("reports the server's refusal of a push service off its allow-list", async () => {
    const { connection } = await connected({ vapidSubject: 'mailto:ops@example.com' });
    const error = await rejection(connection.enablePush());
    expect([error.code, error.status]).toEqual(['PUSH_ENDPOINT_NOT_ALLOWED', 422]);
    expect(error.requestId).toMatch(/^req_/);
  });

  it('says PUSH_NOT_CONFIGURED, without asking for permission, when the server has push off', async () => {
    const { connection, platform } = await connected();
    expect((await rejection(connection.enablePush())).code).toBe('PUSH_NOT_CONFIGURED');
    expect(platform.calls).toEqual([]);
  });
});
