import { createSqliteStore } from '@tidings/store-sqlite';
import { expectConforms } from '@tidings/test-support/openapi-conformance.js';
import {
  createManualClock,
  createTidings,
  type LimitsOptions,
  silentLogger,
  TidingsError,
  type TidingsOptions,
} from '../src/index.js';

/** A Tidings instance on an in-memory SQLite store with a manual clock, and a verified account with keys. */
export async function createHarness(options: { limits?: LimitsOptions; extra?: Partial<TidingsOptions> } = {}) {
  const clock = createManualClock(Date.UTC(2026, 5, 1, 12));
  const store = createSqliteStore({ path: ':memory:' });
  const tidings = createTidings({
    store,
    clock,
    logger: silentLogger,
    sweepIntervalMs: 0,
    limits: options.limits,
    ...options.extra,
  });
  const account = await tidings.admin.createAccount({ email: 'owner@example.com', verified: true });
  const project = await tidings.admin.createProject({ accountId: account.id, name: 'Main' });
  const live = await tidings.admin.createKey({ projectId: project.id, mode: 'live' });
  const test = await tidings.admin.createKey({ projectId: project.id, mode: 'test' });

  let address = '203.0.113.7';
  const harness = {
    tidings,
    store,
    clock,
    account,
    project,
    liveKey: live.key!,
    testKey: test.key!,
    /** Sets the client address the next requests come from. */
    from(ip: string) {
      address = ip;
      return harness;
    },
    /** Sends a request through the instance as a host adapter would. */
    async request(path: string, init: RequestInit & { key?: string; json?: unknown } = {}) {
      const headers = new Headers(init.headers);
      if (init.key) headers.set('Authorization', `Bearer ${init.key}`);
      let body = init.body;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        if (!headers.has('content-type')) headers.set('Content-Type', 'application/json');
      }
      const request = new Request(`http://tidings.test${path}`, { ...init, headers, body });
      const response = await tidings.fetch(request, { clientAddress: address });
      // Every answer a test sees is checked against the OpenAPI document.
      await expectConforms(request.method, request.url, response);
      return response;
    },
    /** Mints a connect token and registers a browser of the recipient (the polling form). */
    async connectBrowser(recipient: string, projectId = project.id) {
      const token = await tidings.createConnectToken({ projectId, recipient });
      const response = await harness.request(`/v1/connect/${token.token}`, { method: 'POST' });
      if (response.status !== 201) throw new Error(`register failed: ${response.status} ${await response.text()}`);
      const browser = (await response.json()) as { browser_id: string; browser_secret: string };
      return { token: token.token, browserId: browser.browser_id, secret: browser.browser_secret };
    },
    /** Sends a notification with a key. */
    send(body: unknown, key: string = live.key!, headers: Record<string, string> = {}) {
      return harness.request('/v1/notifications', { method: 'POST', key, json: body, headers });
    },
    async close() {
      await tidings.close();
      await store.close();
    },
  };
  return harness;
}

export type Harness = Awaited<ReturnType<typeof createHarness>>;

/** The code of the TidingsError `promise` rejects with; throws when it resolves, or rejects with anything else. */
export async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof TidingsError)) throw new Error(`expected a TidingsError, got ${String(error)}`);
  return error.code;
}
