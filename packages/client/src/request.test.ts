import { errorCodes } from '@tidings/core';
import { describe, expect, it } from 'vitest';
import { fakeEnvironment, json, notification, problem, scriptedFetch } from '../test/fake-fetch.js';
import { TidingsClient } from './client.js';
import { type ServerErrorCode, TidingsError } from './errors.js';
import type { TidingsClientOptions } from './options.js';

const liveKey = `sk_live_${'a'.repeat(32)}`;
const sent = notification([false]);

function client(answers: Parameters<typeof scriptedFetch>[0], options: Partial<TidingsClientOptions> = {}) {
  const { fetch, seen } = scriptedFetch(answers);
  const { environment, sleeps } = fakeEnvironment();
  const tidings = new TidingsClient({ apiKey: liveKey, baseUrl: 'https://t.example/', fetch, environment, ...options });
  return { tidings, seen, sleeps };
}

async function rejection(promise: Promise<unknown>): Promise<TidingsError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TidingsError);
  return error as TidingsError;
}

describe('send', () => {
  it('posts the JSON body with the key, a generated Idempotency-Key and the client in User-Agent', async () => {
    const { tidings, seen } = client([json(201, sent)], {
      userAgent: 'shop/1.4',
      headers: { authorization: 'Bearer sk_other', 'X-Trace-Id': 't-1' },
    });
    expect(await tidings.notifications.send({ recipient: 'user_42', title: 'Hi', url: '/orders/42' })).toEqual(sent);
    const [request] = seen;
    expect(request).toMatchObject({ url: 'https://t.example/v1/notifications', method: 'POST' });
    expect(JSON.parse(request!.body!)).toEqual({ recipient: 'user_42', title: 'Hi', url: '/orders/42' });
    expect(request!.headers.get('authorization')).toBe(`Bearer ${liveKey}`);
    expect(request!.headers.get('content-type')).toBe('application/json');
    expect(request!.headers.get('idempotency-key')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(request!.headers.get('user-agent')).toBe('shop/1.4 tidings-client/0.1.0');
    expect(request!.headers.get('x-trace-id')).toBe('t-1');
  });

  it('uses the caller’s key, and a new key for each call without one', async () => {
    const { tidings, seen } = client([json(201, sent), json(201, sent), json(201, sent)]);
    await tidings.notifications.send({ recipient: 'a', title: 'x' }, { idempotencyKey: 'order-42-shipped' });
    await tidings.notifications.send({ recipient: 'a', title: 'x' });
    await tidings.notifications.send({ recipient: 'a', title: 'x' });
    const keys = seen.map((request) => request.headers.get('idempotency-key'));
    expect(keys[0]).toBe('order-42-shipped');
    expect(new Set(keys).size).toBe(3);
  });

  it('retries 409 IDEMPOTENCY_IN_PROGRESS after its Retry-After, with the same key and bytes', async () => {
    const { tidings, seen, sleeps } = client([
      problem(409, 'IDEMPOTENCY_IN_PROGRESS', { 'Retry-After': '1' }),
      json(201, sent, { 'Idempotent-Replayed': 'true' }),
    ]);
    expect(await tidings.notifications.send({ recipient: 'a', title: 'x' })).toEqual(sent);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.headers.get('idempotency-key')).toBe(seen[0]!.headers.get('idempotency-key'));
    expect(seen[1]!.body).toBe(seen[0]!.body);
    // Never earlier than Retry-After; the draw of 0.5 adds half of the 500 ms jitter bound.
    expect(sleeps).toEqual([1250]);
  });

  it('retries 5xx answers with full-jitter backoff, reusing the key', async () => {
    const { tidings, seen, sleeps } = client([
      new Response('<html>Bad gateway</html>', { status: 502 }),
      problem(500, 'INTERNAL_ERROR'),
      json(201, sent),
    ]);
    expect(await tidings.notifications.send({ recipient: 'a', title: 'x' })).toEqual(sent);
    expect(new Set(seen.map((request) => request.headers.get('idempotency-key'))).size).toBe(1);
    expect(sleeps).toEqual([250, 500]); // draws of 0.5 in [0, 500) and [0, 1000)
  });

  it('retries a network error and a timeout, reusing the key', async () => {
    const hang = (init: RequestInit) =>
      new Promise<Response>((_, reject) => init.signal!.addEventListener('abort', () => reject(init.signal!.reason)));
    const { tidings, seen } = client([new TypeError('fetch failed'), hang, json(201, sent)], { timeoutMs: 20 });
    expect(await tidings.notifications.send({ recipient: 'a', title: 'x' })).toEqual(sent);
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((request) => request.headers.get('idempotency-key'))).size).toBe(1);
  });

  it('gives up after maxRetries retries with the last error', async () => {
    const { tidings, seen } = client([
      new TypeError('fetch failed'),
      new TypeError('fetch failed'),
      problem(503, 'INTERNAL_ERROR'),
    ]);
    const error = await rejection(tidings.notifications.send({ recipient: 'a', title: 'x' }));
    expect(seen).toHaveLength(3);
    expect(error).toMatchObject({ code: 'INTERNAL_ERROR', status: 503, requestId: 'req_internal_error' });

    const once = client([new TypeError('fetch failed', { cause: new Error('ECONNREFUSED') })]);
    const networkError = await rejection(
      once.tidings.notifications.send({ recipient: 'a', title: 'x' }, { maxRetries: 0 }),
    );
    expect(networkError).toMatchObject({ code: 'NETWORK_ERROR', status: null, requestId: null });
    expect(networkError.message).toContain('ECONNREFUSED');
  });

  it('waits a 429’s Retry-After, and throws at once when it is longer than maxRetryAfterMs', async () => {
    const { tidings, sleeps } = client([problem(429, 'RATE_LIMITED', { 'Retry-After': '3' }), json(201, sent)]);
    await tidings.notifications.send({ recipient: 'a', title: 'x' });
    expect(sleeps[0]).toBeGreaterThanOrEqual(3000);

    const long = client([problem(429, 'RATE_LIMITED', { 'Retry-After': '120' })], { maxRetryAfterMs: 30_000 });
    const error = await rejection(long.tidings.notifications.send({ recipient: 'a', title: 'x' }));
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429, retryAfter: 120 });
    expect(long.seen).toHaveLength(1);
    expect(long.sleeps).toEqual([]);
  });

  it('never retries another 4xx', async () => {
    const cases: [number, ServerErrorCode][] = [
      [400, 'VALIDATION_FAILED'],
      [401, 'UNAUTHORIZED'],
      [403, 'FORBIDDEN'],
      [403, 'PROJECT_SUSPENDED'],
      [404, 'NOT_FOUND'],
      [409, 'NO_CONNECTED_BROWSER'],
      [413, 'PAYLOAD_TOO_LARGE'],
      [415, 'UNSUPPORTED_MEDIA_TYPE'],
      [422, 'IDEMPOTENCY_MISMATCH'],
    ];
    for (const [status, code] of cases) {
      const { tidings, seen, sleeps } = client([problem(status, code)]);
      const error = await rejection(tidings.notifications.send({ recipient: 'a', title: 'x' }));
      expect(error).toMatchObject({ code, status });
      expect(seen).toHaveLength(1);
      expect(sleeps).toEqual([]);
    }
  });

  it('stops at once when the caller aborts, also between retries', async () => {
    const controller = new AbortController();
    controller.abort(new Error('shutting down'));
    const { tidings, seen } = client([json(201, sent)]);
    const error = await rejection(
      tidings.notifications.send({ recipient: 'a', title: 'x' }, { signal: controller.signal }),
    );
    expect(error.code).toBe('ABORTED');
    expect(seen).toHaveLength(0);

    const later = new AbortController();
    const abortDuringRequest = (init: RequestInit) => {
      later.abort();
      return Promise.reject(init.signal!.reason);
    };
    const second = client([abortDuringRequest, json(201, sent)]);
    const aborted = await rejection(
      second.tidings.notifications.send({ recipient: 'a', title: 'x' }, { signal: later.signal }),
    );
    expect(aborted.code).toBe('ABORTED');
    expect(second.seen).toHaveLength(1);
  });
});

describe('error mapping', () => {
  // A Record over the union: the compiler requires every code of the contract here.
  const statuses: Record<ServerErrorCode, number> = {
    VALIDATION_FAILED: 400,
    UNAUTHORIZED: 401,
    FORBIDDEN: 403,
    PROJECT_SUSPENDED: 403,
    EMAIL_NOT_VERIFIED: 403,
    NOT_FOUND: 404,
    METHOD_NOT_ALLOWED: 405,
    NO_CONNECTED_BROWSER: 409,
    BROWSER_DISCONNECTED: 409,
    PUSH_NOT_CONFIGURED: 409,
    IDEMPOTENCY_IN_PROGRESS: 409,
    PROJECT_LIMIT_REACHED: 409,
    KEY_LIMIT_REACHED: 409,
    WEBHOOK_ENDPOINT_LIMIT_REACHED: 409,
    PAYLOAD_TOO_LARGE: 413,
    UNSUPPORTED_MEDIA_TYPE: 415,
    IDEMPOTENCY_MISMATCH: 422,
    PUSH_ENDPOINT_NOT_ALLOWED: 422,
    RATE_LIMITED: 429,
    INTERNAL_ERROR: 500,
    SERVICE_UNAVAILABLE: 503,
  };

  it("names exactly the server's codes, with the server's statuses", () => {
    // The client is published without the core; this ties its list to the core's code table.
    expect(Object.keys(statuses).sort()).toEqual(Object.keys(errorCodes).sort());
    for (const [code, { status }] of Object.entries(errorCodes)) {
      expect(statuses[code as ServerErrorCode], code).toBe(status);
    }
  });

  it('turns every problem of the contract into a TidingsError with its code, status, request id and problem', async () => {
    for (const [code, status] of Object.entries(statuses)) {
      const { tidings } = client([problem(status, code, { 'Retry-After': '2' })], { maxRetries: 0 });
      const error = await rejection(tidings.notifications.retrieve('ntf_x'));
      expect(error).toMatchObject({ name: 'TidingsError', code, status, requestId: `req_${code.toLowerCase()}` });
      expect(error.retryAfter).toBe(2);
      expect(error.problem).toMatchObject({ code, status, detail: `detail of ${code}` });
      expect(error.message).toBe(`detail of ${code}`);
    }
  });

  it('keeps the field errors of a VALIDATION_FAILED', async () => {
    const body = { code: 'VALIDATION_FAILED', status: 400, detail: 'title: too small', request_id: 'req_1' };
    const errors = [{ path: 'title', message: 'too small' }];
    const { tidings } = client([json(400, { ...body, errors })]);
    const error = await rejection(tidings.notifications.send({ recipient: 'a', title: '' }));
    expect(error.errors).toEqual(errors);
  });

  it('reports an answer without a problem as HTTP_ERROR, and a success that is not JSON as INVALID_RESPONSE', async () => {
    const html = client([new Response('<h1>Forbidden</h1>', { status: 403, headers: { 'Request-Id': 'req_h' } })]);
    expect(await rejection(html.tidings.notifications.retrieve('ntf_x'))).toMatchObject({
      code: 'HTTP_ERROR',
      status: 403,
      requestId: 'req_h',
      problem: null,
    });
    const garbled = client([new Response('ok', { status: 200 })]);
    expect(await rejection(garbled.tidings.notifications.retrieve('ntf_x'))).toMatchObject({
      code: 'INVALID_RESPONSE',
      status: 200,
    });
    expect(garbled.seen).toHaveLength(1);
  });
});

describe('retrieve and connectTokens.create', () => {
  it('retrieve reads the escaped path and retries a 5xx', async () => {
    const { tidings, seen } = client([problem(503, 'INTERNAL_ERROR'), json(200, sent)]);
    expect(await tidings.notifications.retrieve('ntf_01/..')).toEqual(sent);
    expect(seen.map((request) => [request.method, request.url])).toEqual([
      ['GET', 'https://t.example/v1/notifications/ntf_01%2F..'],
      ['GET', 'https://t.example/v1/notifications/ntf_01%2F..'],
    ]);
    expect(seen[0]!.body).toBeNull();
    expect(seen[0]!.headers.get('content-type')).toBeNull();
  });

  it('connectTokens.create sends ttl_seconds and retries a network error', async () => {
    const token = {
      object: 'connect_token',
      token: `ct_${'b'.repeat(32)}`,
      recipient: 'user_42',
      expires_at: '2026-11-22T11:00:00.000Z',
      connect_url: 'https://t.example/v1/connect/ct_…',
    };
    const { tidings, seen } = client([new TypeError('fetch failed'), json(201, token)]);
    expect(await tidings.connectTokens.create({ recipient: 'user_42', ttlSeconds: 600 })).toEqual(token);
    expect(seen.map((request) => JSON.parse(request.body!))).toEqual([
      { recipient: 'user_42', ttl_seconds: 600 },
      { recipient: 'user_42', ttl_seconds: 600 },
    ]);
    expect(seen[0]!.headers.get('idempotency-key')).toBeNull();
  });
});
