import { describe, expect, it } from 'vitest';
import packageJson from '../package.json' with { type: 'json' };
import { fakeEnvironment, json, notification, scriptedFetch } from '../test/fake-fetch.js';
import { TidingsClient } from './client.js';
import { TidingsError, TidingsWaitTimeoutError } from './errors.js';
import { CLIENT_VERSION } from './options.js';
import { isBrowserPage } from './runtime.js';

const liveKey = `sk_live_${'a'.repeat(32)}`;
const testKey = `sk_test_${'a'.repeat(32)}`;

describe('construction', () => {
  it('throws a TypeError on a bad key, base URL or number', () => {
    const base = { apiKey: liveKey, baseUrl: 'https://t.example' };
    expect(() => new TidingsClient({ ...base, apiKey: 'sk_live_short' })).toThrow(/apiKey must be sk_live_/);
    expect(() => new TidingsClient({ ...base, apiKey: undefined as unknown as string })).toThrow(TypeError);
    expect(() => new TidingsClient({ ...base, baseUrl: 't.example' })).toThrow(/baseUrl/);
    expect(() => new TidingsClient({ ...base, maxRetries: -1 })).toThrow(/maxRetries/);
    expect(() => new TidingsClient({ ...base, maxRetries: 1.5 })).toThrow(/maxRetries/);
    expect(() => new TidingsClient({ ...base, pollIntervalMs: 100 })).toThrow(/pollIntervalMs/);
    expect(() => new TidingsClient({ ...base, maxRetryDelayMs: 10 })).toThrow(/maxRetryDelayMs/);
    expect(new TidingsClient(base).mode).toBe('live');
    expect(new TidingsClient({ ...base, apiKey: testKey }).mode).toBe('test');
  });

  it('refuses a live key in a web page, and lets a test key through without a User-Agent', async () => {
    const { environment } = fakeEnvironment();
    const page = { ...environment, isBrowserPage: true };
    expect(() => new TidingsClient({ apiKey: liveKey, baseUrl: 'https://t.example', environment: page })).toThrow(
      /live API key must never reach a web page/,
    );
    const { fetch, seen } = scriptedFetch([json(200, notification([true]))]);
    const tidings = new TidingsClient({ apiKey: testKey, baseUrl: 'https://t.example', environment: page, fetch });
    await tidings.notifications.retrieve('ntf_01');
    // A header outside the server's CORS preflight allowance would fail in a page.
    expect(seen[0]!.headers.get('user-agent')).toBeNull();
  });

  it('knows a web page from Node.js, Deno, Bun and workers', () => {
    expect(isBrowserPage({ window: {}, document: {} })).toBe(true);
    expect(isBrowserPage({})).toBe(false); // Node.js, Bun, Deno 2
    expect(isBrowserPage({ window: {} })).toBe(false); // Deno 1 has a window and no document
    expect(isBrowserPage({ self: {}, caches: {} })).toBe(false); // a worker
    expect(isBrowserPage()).toBe(false); // this test runs in Node.js
  });
});

describe('User-Agent', () => {
  it('names the version the package is published as', () => {
    expect(CLIENT_VERSION).toBe(packageJson.version);
  });
});

describe('waitUntilFinal', () => {
  function waiter(answers: Parameters<typeof scriptedFetch>[0], pollIntervalMs?: number) {
    const { fetch, seen } = scriptedFetch(answers);
    const { environment, sleeps } = fakeEnvironment();
    const tidings = new TidingsClient({
      apiKey: liveKey,
      baseUrl: 'https://t.example',
      fetch,
      environment,
      pollIntervalMs,
    });
    return { tidings, seen, sleeps };
  }

  it('polls a few seconds apart and resolves once every attempt is final', async () => {
    const { tidings, seen, sleeps } = waiter([
      json(200, notification([false, false])),
      json(200, notification([true, false])),
      json(200, notification([true, true])),
    ]);
    const done = await tidings.notifications.waitUntilFinal('ntf_01', { timeoutMs: 30_000 });
    expect(done.status).toBe('completed');
    expect(seen).toHaveLength(3);
    expect(sleeps).toEqual([2000, 2000]);
  });

  it('throws a TidingsWaitTimeoutError with the last notification, after a last poll at the deadline', async () => {
    const pending = notification([true, false]);
    const { tidings, seen, sleeps } = waiter(
      Array.from({ length: 4 }, () => json(200, pending)),
      3000,
    );
    const error = await tidings.notifications.waitUntilFinal('ntf_01', { timeoutMs: 7000 }).catch((caught) => caught);
    expect(error).toBeInstanceOf(TidingsWaitTimeoutError);
    expect(error).toBeInstanceOf(TidingsError);
    expect(error.code).toBe('WAIT_TIMEOUT');
    expect(error.notification).toEqual(pending);
    expect(error.message).toMatch(/1 attempts not final/);
    expect(sleeps).toEqual([3000, 3000, 1000]); // polls at 0, 3, 6 and 7 s
    expect(seen).toHaveLength(4);
  });

  it('passes a poll’s error through, and refuses an interval under a second', async () => {
    const { tidings } = waiter([json(404, { code: 'NOT_FOUND', status: 404, detail: 'x', request_id: 'req_1' })]);
    await expect(tidings.notifications.waitUntilFinal('ntf_01')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(tidings.notifications.waitUntilFinal('ntf_01', { intervalMs: 500 })).rejects.toThrow(TypeError);
  });

  it('stops with ABORTED when its signal aborts during a pause', async () => {
    const controller = new AbortController();
    const { fetch } = scriptedFetch([json(200, notification([false]))]);
    const { environment } = fakeEnvironment();
    const tidings = new TidingsClient({
      apiKey: liveKey,
      baseUrl: 'https://t.example',
      fetch,
      environment: {
        ...environment,
        sleep: (milliseconds, signal) => {
          controller.abort();
          return environment.sleep(milliseconds, signal);
        },
      },
    });
    const error = await tidings.notifications.waitUntilFinal('ntf_01', { signal: controller.signal }).catch((e) => e);
    expect(error).toMatchObject({ code: 'ABORTED' });
  });
});
