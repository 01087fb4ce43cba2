import type { NotificationObject as ServerNotification, Problem as ServerProblem } from '@tidings/core';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { ConnectTokenObject as ServerConnectToken } from '../../core/src/delivery/connect-tokens.js';
import { TidingsClient } from '../src/client.js';
import { TidingsError, TidingsWaitTimeoutError } from '../src/errors.js';
import type { AttemptObject, ConnectTokenObject, NotificationObject, ProblemDetails } from '../src/types.js';
import {
  confirmDelivered,
  connectBrowser,
  pollBrowser,
  recordingFetch,
  startTidingsServer,
  type TidingsServer,
} from './tidings-server.js';

/** The client against a real `tidings serve` process with the default limits. */
let server: TidingsServer;
let live: TidingsClient;
let test: TidingsClient;

beforeAll(async () => {
  server = await startTidingsServer();
  live = new TidingsClient({ apiKey: server.liveKey, baseUrl: server.url });
  test = new TidingsClient({ apiKey: server.testKey, baseUrl: `${server.url}/` });
});

afterAll(async () => {
  await server?.stop();
});

/** A client whose requests are recorded, to count what it sent. */
function recordedClient(apiKey: string, options: { headers?: Record<string, string>; maxRetries?: number } = {}) {
  const { fetch, log } = recordingFetch();
  return { client: new TidingsClient({ apiKey, baseUrl: server.url, fetch, ...options }), log };
}

async function rejection(promise: Promise<unknown>): Promise<TidingsError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TidingsError);
  return error as TidingsError;
}

// One check per field: the mapped type makes the compiler require every field of the client's
// type, and no other, so comparing the keys of a real answer with these compares it with the type.
type FieldChecks<T> = { [K in keyof T]-?: (value: unknown) => boolean };
const isString = (value: unknown) => typeof value === 'string';
const isTime = (value: unknown) => typeof value === 'string' && /^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(value);
const orNull =
  (check: (value: unknown) => boolean) =>
  (value: unknown): boolean =>
    value === null || check(value);
const oneOf =
  (...values: unknown[]) =>
  (value: unknown) =>
    values.includes(value);

const attemptChecks: FieldChecks<AttemptObject> = {
  object: oneOf('attempt'),
  id: (value) => isString(value) && String(value).startsWith('att_'),
  browser_id: (value) => isString(value) && String(value).startsWith('brw_'),
  status: oneOf('accepted', 'sent', 'delivered', 'expired', 'failed'),
  final: (value) => typeof value === 'boolean',
  accepted_at: isTime,
  sent_at: orNull(isTime),
  via: oneOf(null, 'stream', 'poll', 'push'),
  push_accepted_at: orNull(isTime),
  delivered_at: orNull(isTime),
  failed_at: orNull(isTime),
  expired_at: orNull(isTime),
  reason: oneOf(null, 'browser_disconnected', 'browser_stale', 'ttl_expired', 'push_rejected'),
  displayed_at: orNull(isTime),
  clicked_at: orNull(isTime),
  dismissed_at: orNull(isTime),
};
const notificationChecks: FieldChecks<NotificationObject> = {
  object: oneOf('notification'),
  id: (value) => isString(value) && String(value).startsWith('ntf_'),
  mode: oneOf('live', 'test'),
  recipient: isString,
  title: isString,
  body: orNull(isString),
  url: orNull(isString),
  icon: orNull(isString),
  tag: orNull(isString),
  data: orNull((value) => typeof value === 'object' && !Array.isArray(value)),
  ttl: Number.isInteger,
  created_at: isTime,
  expires_at: isTime,
  status: oneOf('pending', 'completed'),
  attempts: (value) => Array.isArray(value) && value.length > 0,
};
const connectTokenChecks: FieldChecks<ConnectTokenObject> = {
  object: oneOf('connect_token'),
  token: (value) => isString(value) && /^ct_[A-Za-z0-9]{32}$/.test(String(value)),
  recipient: isString,
  expires_at: isTime,
  connect_url: (value) => isString(value) && String(value).startsWith(`${server.url}/v1/connect/ct_`),
};
const problemChecks: FieldChecks<ProblemDetails> = {
  type: (value) => isString(value) && String(value).startsWith('urn:tidings:problem:'),
  title: isString,
  status: Number.isInteger,
  detail: isString,
  code: isString,
  request_id: (value) => isString(value) && String(value).startsWith('req_'),
  errors: (value) => Array.isArray(value) && value.every((error) => isString(error.path) && isString(error.message)),
};

function expectShape<T>(value: unknown, checks: FieldChecks<T>, optional: (keyof T)[] = []): void {
  const record = value as Record<string, unknown>;
  const expected = Object.keys(checks).filter((key) => key in record || !optional.includes(key as keyof T));
  expect(Object.keys(record).sort()).toEqual(expected.sort());
  for (const key of expected) {
    expect({ [key]: (checks as Record<string, (value: unknown) => boolean>)[key]!(record[key]) }).toEqual({
      [key]: true,
    });
  }
}

describe('the client’s types', () => {
  it('are the server’s own types, field for field', () => {
    expectTypeOf<NotificationObject>().toEqualTypeOf<ServerNotification>();
    expectTypeOf<AttemptObject>().toEqualTypeOf<ServerNotification['attempts'][number]>();
    expectTypeOf<ConnectTokenObject>().toEqualTypeOf<ServerConnectToken>();
    expectTypeOf<ProblemDetails>().toEqualTypeOf<ServerProblem>();
  });
});

describe('@tidings/client against tidings serve', () => {
  it('mints a connect token, sends, retrieves: real answers have exactly the client’s types', async () => {
    const token = await live.connectTokens.create({ recipient: 'alice', ttlSeconds: 600 });
    expectShape(token, connectTokenChecks);
    expect(Date.parse(token.expires_at) - Date.now()).toBeGreaterThan(590_000);
    await connectBrowser(live, 'alice');

    const sent = await live.notifications.send({ recipient: 'alice', title: 'Hi', url: '/inbox', data: { n: 1 } });
    expectShape(sent, notificationChecks);
    expectShape(sent.attempts[0], attemptChecks);
    expect(sent).toMatchObject({ mode: 'live', recipient: 'alice', status: 'pending', data: { n: 1 } });
    expect(sent.attempts[0]).toMatchObject({ status: 'accepted', final: false });

    const read = await live.notifications.retrieve(sent.id);
    expectShape(read, notificationChecks);
    expect(read.id).toBe(sent.id);

    const error = await rejection(live.notifications.send({ recipient: 'alice', title: '' }));
    expectShape(error.problem, problemChecks, ['errors']);
    expect(error.errors.map((field) => field.path)).toEqual(['title']);
  });

  it('waitUntilFinal resolves once the browser confirms delivery, and times out with the last notification', async () => {
    const browser = await connectBrowser(live, 'bob');
    const sent = await live.notifications.send({ recipient: 'bob', title: 'Deliver me' });
    const pending = await rejection(live.notifications.waitUntilFinal(sent.id, { timeoutMs: 1500, intervalMs: 1000 }));
    expect(pending).toBeInstanceOf(TidingsWaitTimeoutError);
    expect((pending as TidingsWaitTimeoutError).notification).toMatchObject({ id: sent.id, status: 'pending' });

    const waiting = live.notifications.waitUntilFinal(sent.id, { timeoutMs: 20_000, intervalMs: 1000 });
    const [delivery] = await pollBrowser(browser);
    expect(delivery).toMatchObject({ notification_id: sent.id, title: 'Deliver me' });
    await confirmDelivered(server.url, browser, delivery!.attempt_id);
    const final = await waiting;
    expect(final.status).toBe('completed');
    expect(final.attempts[0]).toMatchObject({ status: 'delivered', final: true });

    // A test-mode attempt is final at once.
    const quick = await test.notifications.send({ recipient: 'bob', title: 'Test' });
    expect((await test.notifications.waitUntilFinal(quick.id, { timeoutMs: 0 })).status).toBe('completed');
  });

  it('one Idempotency-Key sent from many calls at once creates one notification', async () => {
    const browser = await connectBrowser(live, 'carol');
    const params = { recipient: 'carol', title: 'Once' };
    const results = await Promise.all(
      Array.from({ length: 5 }, () => live.notifications.send(params, { idempotencyKey: 'carol-once' })),
    );
    expect(new Set(results.map((result) => result.id)).size).toBe(1);
    expect((await pollBrowser(browser)).map((delivery) => delivery.title)).toEqual(['Once']);
  });

  it('maps every error code the API can answer to a TidingsError, without retrying', async () => {
    await connectBrowser(live, 'dave');
    const expectRefused = async (
      call: (client: TidingsClient) => Promise<unknown>,
      expected: { code: string; status: number },
      apiKey = server.liveKey,
      headers?: Record<string, string>,
    ) => {
      const { client, log } = recordedClient(apiKey, { headers });
      const error = await rejection(call(client));
      expect(error).toMatchObject(expected);
      expect(error.requestId).toMatch(/^req_/);
      expect(error.problem).toMatchObject({ ...expected, request_id: error.requestId });
      expect(log).toHaveLength(1);
      return error;
    };
    const send = (params: Record<string, unknown>, idempotencyKey?: string) => (client: TidingsClient) =>
      client.notifications.send({ recipient: 'dave', title: 'x', ...params }, { idempotencyKey });

    await expectRefused(send({}), { code: 'UNAUTHORIZED', status: 401 }, `sk_live_${'0'.repeat(32)}`);
    await expectRefused(send({}), { code: 'FORBIDDEN', status: 403 }, server.liveKey, {
      Origin: 'https://shop.example',
    });
    await expectRefused(send({}), { code: 'PROJECT_SUSPENDED', status: 403 }, server.suspendedKey);
    await expectRefused((client) => client.notifications.retrieve('ntf_0000000000aaaaaaaaaaaaaaaa'), {
      code: 'NOT_FOUND',
      status: 404,
    });
    await expectRefused(send({ recipient: 'nobody' }), { code: 'NO_CONNECTED_BROWSER', status: 409 });
    await live.notifications.send({ recipient: 'dave', title: 'first' }, { idempotencyKey: 'dave-1' });
    await expectRefused(send({ title: 'second' }, 'dave-1'), { code: 'IDEMPOTENCY_MISMATCH', status: 422 });
    await expectRefused(send({ data: { blob: 'x'.repeat(40_000) } }), { code: 'PAYLOAD_TOO_LARGE', status: 413 });
    const invalid = await expectRefused(send({ ttl: 0, url: 'javascript:alert(1)' }), {
      code: 'VALIDATION_FAILED',
      status: 400,
    });
    expect(invalid.errors.map((field) => field.path).sort()).toEqual(['ttl', 'url']);
    await expectRefused((client) => client.connectTokens.create({ recipient: 'not valid!' }), {
      code: 'VALIDATION_FAILED',
      status: 400,
    });
    await expectRefused(send({}, 'x'.repeat(256)), { code: 'VALIDATION_FAILED', status: 400 });
  });

  it('accepts a test key with a page’s Origin header', async () => {
    const fromPage = new TidingsClient({
      apiKey: server.testKey,
      baseUrl: server.url,
      headers: { Origin: 'https://shop.example' },
    });
    await connectBrowser(live, 'erin');
    expect((await fromPage.notifications.send({ recipient: 'erin', title: 'From a page' })).mode).toBe('test');
  });
});

describe('inbox', () => {
  it('lists, counts and marks a recipient’s inbox; a test key sees it empty', async () => {
    await connectBrowser(live, 'inbox-reader');
    const sent = await live.notifications.send({
      recipient: 'inbox-reader',
      title: 'Read me',
      notify_unread_after: 600,
    });
    const page = await live.inbox.list('inbox-reader', { unread: true, limit: 5 });
    expect(page.data.map((item) => item.id)).toEqual([sent.id]);
    expect(page.data[0]).toMatchObject({ object: 'inbox_item', title: 'Read me', read_at: null });
    expect(await live.inbox.counts('inbox-reader')).toEqual({
      object: 'inbox_counts',
      total: 1,
      unread: 1,
      unseen: 1,
      version: expect.any(Number),
    });
    const update = await live.inbox.mark('inbox-reader', { action: 'read', ids: [sent.id] });
    expect(update.items[0]!.read_at).not.toBeNull();
    expect(update.counts).toMatchObject({ unread: 0, unseen: 0 });
    const archived = await live.inbox.mark('inbox-reader', { action: 'archive', all: true });
    expect(archived).toMatchObject({ all: true, counts: { total: 0 } });
    expect((await live.inbox.list('inbox-reader', { archived: true })).data).toHaveLength(1);
    expect((await test.inbox.list('inbox-reader')).data).toEqual([]);
    const refused = await rejection(live.inbox.list('inbox-reader', { limit: 500 }));
    expect(refused.code).toBe('VALIDATION_FAILED');
  });
});
