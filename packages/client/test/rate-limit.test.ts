import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TidingsClient } from '../src/client.js';
import { TidingsError } from '../src/errors.js';
import {
  connectBrowser,
  pollBrowser,
  recordingFetch,
  startTidingsServer,
  type TidingsServer,
} from './tidings-server.js';

/** A server whose keys admit 2 requests in any 2 s, so that the 429 path takes seconds, not minutes. */
let server: TidingsServer;

beforeAll(async () => {
  server = await startTidingsServer({ limits: { perKey: 2, windowMs: 2000 } });
});

afterAll(async () => {
  await server?.stop();
});

/** Requests with the live key, outside the client, until one is refused: the key's window is full. */
async function fillWindow(): Promise<void> {
  for (let request = 0; request < 10; request++) {
    const response = await fetch(`${server.url}/v1/notifications/ntf_0000000000aaaaaaaaaaaaaaaa`, {
      headers: { Authorization: `Bearer ${server.liveKey}` },
    });
    await response.body?.cancel();
    if (response.status === 429) return;
  }
  throw new Error('the window never filled');
}

describe('429 RATE_LIMITED against tidings serve', () => {
  it('waits Retry-After, never less, then succeeds with the same Idempotency-Key', async () => {
    const browser = await connectBrowser(new TidingsClient({ apiKey: server.testKey, baseUrl: server.url }), 'alice');
    const { fetch, log } = recordingFetch();
    const live = new TidingsClient({ apiKey: server.liveKey, baseUrl: server.url, fetch });
    await fillWindow();

    const sent = await live.notifications.send({ recipient: 'alice', title: 'After the wait' });

    expect(log.map((entry) => entry.status)).toEqual([429, 201]);
    const retryAfterSeconds = Number(log[0]!.headers!.get('retry-after'));
    expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(log[1]!.sentAt - log[0]!.answeredAt!).toBeGreaterThanOrEqual(retryAfterSeconds * 1000);
    expect(log[1]!.idempotencyKey).toBe(log[0]!.idempotencyKey);
    expect((await pollBrowser(browser)).map((delivery) => delivery.notification_id)).toEqual([sent.id]);
  });

  it('gives up with a RATE_LIMITED error once its retries are spent', async () => {
    const { fetch: recording, log } = recordingFetch();
    // Other traffic of the same key takes the room back before each retry arrives.
    const contended = async (input: RequestInfo | URL, init?: RequestInit) => {
      if (log.length > 0) await fillWindow();
      return recording(input, init);
    };
    const live = new TidingsClient({
      apiKey: server.liveKey,
      baseUrl: server.url,
      fetch: contended as typeof fetch,
      maxRetries: 1,
    });
    await fillWindow();

    const error = await live.notifications.send({ recipient: 'alice', title: 'Never' }).catch((caught) => caught);

    expect(error).toBeInstanceOf(TidingsError);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(error.retryAfter).toBeGreaterThanOrEqual(1);
    expect(error.requestId).toMatch(/^req_/);
    expect(log.map((entry) => entry.status)).toEqual([429, 429]);
  });

  it('throws at once when Retry-After is longer than maxRetryAfterMs', async () => {
    const { fetch, log } = recordingFetch();
    const live = new TidingsClient({ apiKey: server.liveKey, baseUrl: server.url, fetch, maxRetryAfterMs: 0 });
    await fillWindow();
    const error = await live.notifications.retrieve('ntf_0000000000aaaaaaaaaaaaaaaa').catch((caught) => caught);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(log).toHaveLength(1);
  });
});
