import type { RequestContext, Tidings } from '@tidings/core';
import { createTidings, silentLogger } from '@tidings/core';
import { stubTidings, until } from '@tidings/core/testing';
import { createSqliteStore } from '@tidings/store-sqlite';
import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterEach, describe, expect, it } from 'vitest';
import { tidingsNext } from './index.js';

/** A Tidings that records what it receives. */
function fakeTidings() {
  const seen: { request: Request; context: RequestContext | undefined }[] = [];
  const tidings = stubTidings({
    async fetch(request, context) {
      seen.push({ request, context });
      return new Response(`${request.method} ${new URL(request.url).pathname}`);
    },
    handles: () => true,
  });
  return { tidings, seen };
}

describe('tidingsNext', () => {
  it('hands every method’s request to the core as it came, with the base path and the client address', async () => {
    const { tidings, seen } = fakeTidings();
    const handlers = tidingsNext(tidings, { basePath: '/notify/' });
    expect(Object.keys(handlers).sort()).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT']);
    const request = new Request('http://app.test/notify/v1/connect/ct_1', {
      method: 'OPTIONS',
      // As `next start` leaves it: the client's own claim first, the socket's address last.
      headers: { 'x-forwarded-for': '198.51.100.7, 203.0.113.9', 'access-control-request-method': 'POST' },
    });
    const answer = await handlers.OPTIONS(request);
    expect(await answer.text()).toBe('OPTIONS /notify/v1/connect/ct_1');
    expect(seen[0]!.request).toBe(request);
    expect(seen[0]!.context).toEqual({ basePath: '/notify', clientAddress: '203.0.113.9' });
    await handlers.POST(new Request('http://app.test/notify/v1/events', { method: 'POST', body: '{}' }));
    expect(seen[1]!.context).toEqual({ basePath: '/notify', clientAddress: undefined });
  });

  it('makes the instance at the first request, once, and asks a source that failed again', async () => {
    const { tidings } = fakeTidings();
    let calls = 0;
    const handlers = tidingsNext(async () => {
      calls++;
      if (calls === 1) throw new Error('database not up yet');
      return tidings;
    });
    expect(calls).toBe(0);
    const request = () => new Request('http://app.test/v1/events', { method: 'POST', body: '{}' });
    await expect(handlers.POST(request())).rejects.toThrow('database not up yet');
    const answers = await Promise.all([handlers.POST(request()), handlers.GET(request()), handlers.HEAD(request())]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(calls).toBe(2);
    const wrong = tidingsNext(() => ({}) as Tidings);
    await expect(wrong.GET(request())).rejects.toThrow(
      'tidingsNext: the source must give the instance createTidings() returned',
    );
  });
});

describe('tidingsNext with the real core', () => {
  let tidings: Tidings;
  afterEach(async () => {
    await tidings.close();
  });

  it('streams a send in process to a page’s event stream, which ends when the body is cancelled', async () => {
    tidings = createTidings({
      store: createSqliteStore({ path: ':memory:' }),
      project: 'next-app',
      logger: silentLogger,
      sweepIntervalMs: 0,
    });
    const { GET } = tidingsNext(() => tidings, { basePath: '/notify' });
    const { token } = await tidings.createConnectToken({ recipient: 'ada' });
    const answer = await GET(
      new Request(`http://app.test/notify/v1/connect/${token}`, { headers: { 'x-forwarded-for': '127.0.0.1' } }),
    );
    expect(answer.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const stream = readEvents(answer);
    await stream.next('ready');
    const { notification } = await tidings.notifications.send({ recipient: 'ada', title: 'Hello' });
    expect(JSON.parse((await stream.next('notification')).data)).toMatchObject({
      notification_id: notification.id,
      title: 'Hello',
    });
    expect(tidings.openStreams()).toBe(1);
    // As Next.js does when the page goes away: the response's body is cancelled.
    await stream.cancel();
    await until(() => tidings.openStreams() === 0, { what: 'the stream to end on the server' });
  });
});
