import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAdmin } from '../../cli/src/admin-session.js';
import { TidingsClient } from '../src/client.js';
import { connectBrowser, pollBrowser, startTidingsServer, type TidingsServer } from './tidings-server.js';

let server: TidingsServer;

beforeAll(async () => {
  server = await startTidingsServer();
});

afterAll(async () => {
  await server?.stop();
});

describe('a send retried across a server crash and restart', () => {
  it('reaches the browser exactly once: the retry carries the same key and gets the first answer again', async () => {
    const setup = new TidingsClient({ apiKey: server.testKey, baseUrl: server.url });
    const browser = await connectBrowser(setup, 'alice');

    // The first send reaches the server and is answered; then the server crashes before the
    // answer reaches the client, which sees only a dropped connection.
    const requests: { idempotencyKey: string | null; status: number; replayed: string | null }[] = [];
    let firstAnswer: { id: string } | null = null;
    const crashingFetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
      const response = await fetch(input, init);
      requests.push({
        idempotencyKey: new Headers(init.headers).get('idempotency-key'),
        status: response.status,
        replayed: response.headers.get('idempotent-replayed'),
      });
      if (firstAnswer === null) {
        firstAnswer = (await response.json()) as { id: string };
        await server.crashAndRestart();
        throw new TypeError('fetch failed', { cause: new Error('other side closed') });
      }
      return response;
    };
    const live = new TidingsClient({
      apiKey: server.liveKey,
      baseUrl: server.url,
      fetch: crashingFetch as typeof fetch,
    });

    const sent = await live.notifications.send({ recipient: 'alice', title: 'Exactly once' });

    expect(firstAnswer).not.toBeNull();
    expect(sent.id).toBe(firstAnswer!.id);
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ status: 201, replayed: null });
    expect(requests[1]).toMatchObject({ status: 201, replayed: 'true', idempotencyKey: requests[0]!.idempotencyKey });
    expect(requests[0]!.idempotencyKey).toBeTruthy();

    // The store holds one notification, and the browser receives one.
    const usage = await withAdmin(server.db, (admin) => admin.getUsage(server.projectId));
    expect(usage.total).toEqual({ notifications: 1, attempts: 1 });
    expect((await pollBrowser(browser)).map((delivery) => delivery.notification_id)).toEqual([sent.id]);
    expect((await live.notifications.retrieve(sent.id)).attempts).toHaveLength(1);
  });

  it('is retried while the server is down, until it is back, and recorded once', async () => {
    const setup = new TidingsClient({ apiKey: server.testKey, baseUrl: server.url });
    const browser = await connectBrowser(setup, 'bob');
    await server.crash();

    const outcomes: (number | string)[] = [];
    let restarted: Promise<void> | null = null;
    const fetchWhileDown = async (input: RequestInfo | URL, init?: RequestInit) => {
      try {
        const response = await fetch(input, init);
        outcomes.push(response.status);
        return response;
      } catch (error) {
        outcomes.push('refused');
        restarted ??= server.restart(); // back before the client's next try
        await restarted;
        throw error;
      }
    };
    const live = new TidingsClient({
      apiKey: server.liveKey,
      baseUrl: server.url,
      fetch: fetchWhileDown as typeof fetch,
    });
    const before = await withAdmin(server.db, (admin) => admin.getUsage(server.projectId));

    const sent = await live.notifications.send({ recipient: 'bob', title: 'Once more' });

    expect(outcomes).toEqual(['refused', 201]);
    const after = await withAdmin(server.db, (admin) => admin.getUsage(server.projectId));
    expect(after.total.notifications - before.total.notifications).toBe(1);
    expect((await pollBrowser(browser)).map((delivery) => delivery.notification_id)).toEqual([sent.id]);
  });
});
