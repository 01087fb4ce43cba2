import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { RequestContext } from '@tidings/core';
import { stubTidings } from '@tidings/core/testing';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { tidingsHono } from './index.js';

interface Seen {
  request: Request;
  context: RequestContext | undefined;
  body: string;
}

/** A Tidings that records what it receives and answers with `respond`. */
function fakeTidings(respond: (request: Request) => Response = () => new Response('ok')) {
  const seen: Seen[] = [];
  const tidings = stubTidings({
    async fetch(request: Request, context?: RequestContext) {
      seen.push({ request, context, body: await request.text() });
      return respond(request);
    },
    handles: (pathname: string) => /^\/v1\/(notifications|connect|events|browsers|connect-tokens)/.test(pathname),
  });
  return { tidings, seen };
}

describe('tidingsHono', () => {
  it('hands the request to the core untouched: method, URL, headers and body', async () => {
    const { tidings, seen } = fakeTidings();
    const app = new Hono().route('/', tidingsHono(tidings));
    const body = JSON.stringify({ recipient: 'u1', title: 'Hi' });
    await app.request('http://api.test/v1/notifications?x=1', {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_x', 'content-type': 'application/json', 'idempotency-key': 'k1' },
      body,
    });
    expect(seen).toHaveLength(1);
    const [{ request, context, body: received }] = seen as [Seen];
    expect(request.method).toBe('POST');
    expect(request.url).toBe('http://api.test/v1/notifications?x=1');
    expect(request.headers.get('authorization')).toBe('Bearer sk_test_x');
    expect(request.headers.get('idempotency-key')).toBe('k1');
    expect(received).toBe(body);
    expect(context).toEqual({ clientAddress: undefined, basePath: '' });
  });

  it('returns the core’s Response as it is', async () => {
    const answer = new Response('{"a":1}', {
      status: 429,
      headers: { 'retry-after': '3', 'content-type': 'application/problem+json' },
    });
    const { tidings } = fakeTidings(() => answer);
    const app = new Hono().route('/', tidingsHono(tidings));
    const response = await app.request('/v1/notifications/ntf_1');
    expect(response).toBe(answer);
    expect(response.status).toBe(429);
    expect(await response.text()).toBe('{"a":1}');
  });

  it('passes every method through, OPTIONS included', async () => {
    const { tidings, seen } = fakeTidings(() => new Response(null, { status: 204 }));
    const app = new Hono().route('/', tidingsHono(tidings));
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const response = await app.request('/v1/events', { method });
      expect(response.status).toBe(204);
    }
    expect(seen.map((s) => s.request.method)).toEqual(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
  });

  it('streams a body: the first event arrives before the stream ends', async () => {
    let push!: ReadableStreamDefaultController<Uint8Array>;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        push = controller;
      },
    });
    const { tidings } = fakeTidings(() => new Response(stream, { headers: { 'content-type': 'text/event-stream' } }));
    const app = new Hono().route('/', tidingsHono(tidings));
    const response = await app.request('/v1/connect/ct_abc');
    const reader = response.body!.getReader();
    push.enqueue(new TextEncoder().encode('event: ready\n\n'));
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('event: ready\n\n');
    push.close();
    expect((await reader.read()).done).toBe(true);
  });

  it('mounts under a base path given as an option', async () => {
    const { tidings, seen } = fakeTidings();
    const app = new Hono().route('/', tidingsHono(tidings, { basePath: '/notify/' }));
    expect((await app.request('/notify/v1/events', { method: 'POST' })).status).toBe(200);
    expect((await app.request('/v1/events', { method: 'POST' })).status).toBe(404);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.context?.basePath).toBe('/notify');
  });

  it('mounts under the path it is routed to', async () => {
    const { tidings, seen } = fakeTidings();
    const app = new Hono().route('/api', tidingsHono(tidings, { basePath: 'notify' }));
    expect((await app.request('/api/notify/v1/events', { method: 'POST' })).status).toBe(200);
    expect(seen[0]?.context?.basePath).toBe('/api/notify');
  });

  it('mounts under a path with parameters, as each request fills them in', async () => {
    const { tidings, seen } = fakeTidings();
    const sub = tidingsHono(tidings);
    const app = new Hono().route('/static', sub).route('/t/:tenant', sub);
    for (const path of ['/t/acme/v1/events', '/static/v1/events', '/t/globex/v1/events', '/t/acme/v1/events']) {
      expect((await app.request(path, { method: 'POST' })).status).toBe(200);
    }
    expect(seen.map((call) => call.context?.basePath)).toEqual(['/t/acme', '/static', '/t/globex', '/t/acme']);
  });

  it('mounts in an app on Hono’s CommonJS build, the copy of Hono a CommonJS app loads', async () => {
    const { tidings, seen } = fakeTidings();
    const commonJs = createRequire(import.meta.url)('hono') as { Hono: typeof Hono };
    expect(commonJs.Hono).not.toBe(Hono);
    const sub = tidingsHono(tidings);
    const app = new commonJs.Hono().route('/notify', sub).route('/t/:tenant', sub);
    for (const path of ['/notify/v1/events', '/t/acme/v1/events', '/t/globex/v1/events']) {
      expect((await app.request(path, { method: 'POST' })).status).toBe(200);
    }
    expect(seen.map((call) => call.context?.basePath)).toEqual(['/notify', '/t/acme', '/t/globex']);
  });

  it('leaves the host app’s own routes alone, including /v1 paths Tidings does not answer', async () => {
    const { tidings, seen } = fakeTidings();
    const app = new Hono();
    app.get('/', (c) => c.text('home'));
    app.route('/', tidingsHono(tidings));
    app.get('/v1/mine', (c) => c.text('mine'));
    expect(await (await app.request('/')).text()).toBe('home');
    expect(await (await app.request('/v1/mine')).text()).toBe('mine');
    expect((await app.request('/v2/notifications')).status).toBe(404);
    expect(seen).toHaveLength(0);
  });

  it('takes the client address from @hono/node-server’s bindings, or from getClientAddress', async () => {
    const { tidings, seen } = fakeTidings();
    const env = { incoming: { socket: { remoteAddress: '203.0.113.9' } } };
    await new Hono().route('/', tidingsHono(tidings)).request('/v1/events', {}, env);
    const custom = tidingsHono(tidings, { getClientAddress: (c) => c.req.header('x-real-ip') });
    await new Hono().route('/', custom).request('/v1/events', { headers: { 'x-real-ip': '198.51.100.7' } }, env);
    expect(seen.map((s) => s.context?.clientAddress)).toEqual(['203.0.113.9', '198.51.100.7']);
  });

  describe('on @hono/node-server', () => {
    let close: (() => Promise<void>) | undefined;
    afterEach(async () => close?.());

    it('sees the real socket address', async () => {
      const { tidings, seen } = fakeTidings();
      const app = new Hono().route('/', tidingsHono(tidings));
      const port = await new Promise<number>((resolve) => {
        const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) =>
          resolve(info.port),
        );
        close = () => new Promise((done) => server.close(() => done()));
      });
      const response = await fetch(`http://127.0.0.1:${port}/v1/events`, { method: 'POST', body: 'x' });
      expect(await response.text()).toBe('ok');
      expect(seen[0]?.context?.clientAddress).toBe('127.0.0.1');
      expect(seen[0]?.body).toBe('x');
    });

    it('lets the core write event streams to the Node response, unless told not to', async () => {
      const { tidings, seen } = fakeTidings();
      const app = new Hono()
        .route('/a', tidingsHono(tidings))
        .route('/b', tidingsHono(tidings, { nodeStreams: false }));
      const port = await new Promise<number>((resolve) => {
        const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) =>
          resolve(info.port),
        );
        close = () => new Promise((done) => server.close(() => done()));
      });
      await (await fetch(`http://127.0.0.1:${port}/a/v1/connect/ct_x`)).text();
      await (await fetch(`http://127.0.0.1:${port}/b/v1/connect/ct_x`)).text();
      expect(typeof seen[0]?.context?.eventStream?.open).toBe('function');
      expect(seen[1]?.context?.eventStream).toBeUndefined();
    });
  });

  it('gives no event stream target where there is no Node response', async () => {
    const { tidings, seen } = fakeTidings();
    await new Hono().route('/', tidingsHono(tidings)).request('/v1/connect/ct_x');
    expect(seen[0]?.context?.eventStream).toBeUndefined();
  });
});
