import { once } from 'node:events';
import type { RequestContext, Tidings } from '@tidings/core';
import { stubTidings } from '@tidings/core/testing';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { type TidingsFastifyOptions, tidingsFastify } from './index.js';

interface Seen {
  request: Request;
  context: RequestContext | undefined;
  body: string;
}

/** A Tidings that records what it receives and answers with `respond`, and counts its closes. */
function fakeTidings(respond: (request: Request) => Response | Promise<Response> = () => new Response('ok')) {
  const seen: Seen[] = [];
  const handled: string[] = [];
  let closes = 0;
  const stub = stubTidings({
    async fetch(request: Request, context?: RequestContext) {
      seen.push({ request, context, body: await request.text() });
      return respond(request);
    },
    handles(pathname: string) {
      handled.push(pathname);
      return /^\/v1\/(notifications|connect|events|browsers|connect-tokens)/.test(pathname);
    },
  });
  const tidings: Tidings = {
    ...stub,
    async close() {
      closes++;
    },
  };
  return { tidings, seen, handled, closes: () => closes };
}

const apps: FastifyInstance[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** A Fastify app (stopped after the test) with the plugin registered by `register`; resolves with its base URL. */
async function listen(
  app: FastifyInstance,
  register: (app: FastifyInstance) => unknown = () => undefined,
): Promise<string> {
  apps.push(app);
  await register(app);
  return app.listen({ port: 0, host: '127.0.0.1' });
}

/** Registers the plugin with `options` on a new app and listens. */
async function served(tidings: Tidings, options: Omit<TidingsFastifyOptions, 'tidings'> = {}) {
  const app = Fastify({ forceCloseConnections: true });
  const base = await listen(app, (a) => a.register(tidingsFastify, { tidings, ...options }));
  return { app, base };
}

/** A stream the test feeds by hand, and that reports its cancellation. */
function manualStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled!: () => void;
  const cancel = new Promise<void>((resolve) => {
    cancelled = resolve;
  });
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      cancelled();
    },
  });
  const push = (text: string) => controller.enqueue(new TextEncoder().encode(text));
  return { stream, push, close: () => controller.close(), cancel };
}

const sse = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

describe('tidingsFastify', () => {
  it('hands method, absolute URL, headers, the body as sent and the client address to the core', async () => {
    const { tidings, seen } = fakeTidings();
    const { base } = await served(tidings);
    const body = '{ "recipient": "u1",  "title": "Hé" }';
    const response = await fetch(`${base}/v1/notifications?x=1`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_x', 'content-type': 'application/json', 'idempotency-key': 'k1' },
      body,
    });
    expect(await response.text()).toBe('ok');
    const [{ request, context, body: received }] = seen as [Seen];
    expect(request.method).toBe('POST');
    expect(request.url).toBe(`${base}/v1/notifications?x=1`);
    expect(request.headers.get('authorization')).toBe('Bearer sk_test_x');
    expect(request.headers.get('idempotency-key')).toBe('k1');
    // Not parsed by Fastify and serialized again: the bytes as the client sent them.
    expect(received).toBe(body);
    expect(context).toEqual({
      clientAddress: '127.0.0.1',
      basePath: '',
      eventStream: { open: expect.any(Function) },
      writesTextAnswers: true,
    });
  });

  it('passes a text/plain beacon and a body without Content-Type through unread', async () => {
    const { tidings, seen } = fakeTidings(() => new Response(null, { status: 204 }));
    const { base } = await served(tidings);
    const beacon = await fetch(`${base}/v1/browsers/brw_1/disconnect`, { method: 'POST', body: 'bs_secret' });
    expect(beacon.status).toBe(204);
    const bare = await fetch(`${base}/v1/browsers/brw_1/disconnect`, {
      method: 'POST',
      body: new TextEncoder().encode('{"browser_secret":"bs_x"}'),
    });
    expect(bare.status).toBe(204);
    expect(seen.map((s) => [s.request.headers.get('content-type'), s.body])).toEqual([
      ['text/plain;charset=UTF-8', 'bs_secret'],
      [null, '{"browser_secret":"bs_x"}'],
    ]);
  });

  it('writes status, headers (each Set-Cookie apart) and body back', async () => {
    const { tidings } = fakeTidings(() => {
      const headers = new Headers({ 'content-type': 'application/problem+json', 'retry-after': '7' });
      headers.append('set-cookie', 'a=1; Path=/');
      headers.append('set-cookie', 'b=2, c; Path=/');
      return new Response('{"code":"RATE_LIMITED"}', { status: 429, headers });
    });
    const { base } = await served(tidings);
    const response = await fetch(`${base}/v1/notifications/ntf_1`);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2, c; Path=/']);
    expect(await response.text()).toBe('{"code":"RATE_LIMITED"}');
  });

  it('streams an event stream: headers at once, each event as it is produced', async () => {
    const feed = manualStream();
    const { tidings } = fakeTidings(() => new Response(feed.stream, { headers: sse }));
    const { base } = await served(tidings);
    const response = await fetch(`${base}/v1/connect/ct_1`);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    feed.push('event: ready\ndata: {}\n\n');
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('event: ready\ndata: {}\n\n');
    feed.push(': heartbeat\n\n');
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(': heartbeat\n\n');
    feed.close();
    expect((await reader.read()).done).toBe(true);
  });

  it('cancels the stream and aborts the request when the client goes away', async () => {
    const feed = manualStream();
    const { tidings, seen } = fakeTidings(() => new Response(feed.stream, { headers: sse }));
    const { base } = await served(tidings);
    const client = new AbortController();
    const response = await fetch(`${base}/v1/connect/ct_1`, { signal: client.signal });
    feed.push('event: ready\n\n');
    await response.body!.getReader().read();
    client.abort();
    await feed.cancel;
    const { signal } = seen[0]!.request;
    if (!signal.aborted) await once(signal, 'abort');
    expect(signal.aborted).toBe(true);
  });

  it('answers under its prefix, after the prefixes of the contexts it is registered in', async () => {
    const { tidings, seen, handled } = fakeTidings();
    const app = Fastify();
    const base = await listen(app, (a) =>
      a.register(async (api) => api.register(tidingsFastify, { tidings, prefix: '/notify/' }), { prefix: '/api' }),
    );
    expect((await fetch(`${base}/api/notify/v1/events`, { method: 'POST', body: '{}' })).status).toBe(200);
    expect(handled).toEqual(['/v1/events']);
    expect(seen[0]?.context?.basePath).toBe('/api/notify');
    expect(seen[0]?.request.url).toBe(`${base}/api/notify/v1/events`);
    expect((await fetch(`${base}/v1/events`, { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it('leaves the app its own routes and JSON parsing, and its not-found handler for paths Tidings does not answer', async () => {
    const { tidings, seen } = fakeTidings();
    const app = Fastify();
    const base = await listen(app, (a) => {
      a.register(tidingsFastify, { tidings });
      a.post('/orders', async (request) => ({ parsed: request.body }));
      a.setNotFoundHandler((_request, reply) => reply.code(404).send('the app’s own 404'));
    });
    const order = await fetch(`${base}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"id":1}',
    });
    expect(await order.json()).toEqual({ parsed: { id: 1 } });
    const unknown = await fetch(`${base}/v1/mine`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe('the app’s own 404');
    expect(seen).toHaveLength(0);
  });

  it('hands a failure of the core, with nothing written, to the app’s error handler', async () => {
    const { tidings } = fakeTidings(() => {
      throw new Error('boom');
    });
    const app = Fastify();
    const base = await listen(app, (a) => {
      a.setErrorHandler((error, _request, reply) => reply.code(500).send(`handled ${(error as Error).message}`));
      a.register(tidingsFastify, { tidings });
    });
    expect(await (await fetch(`${base}/v1/events`, { method: 'POST', body: '{}' })).text()).toBe('handled boom');
  });

  it('gets a refusal of a large body out, and keeps serving on the connection', async () => {
    const limit = 32 * 1024;
    const { tidings } = fakeTidings();
    const app = Fastify({ forceCloseConnections: true });
    const base = await listen(app, (a) =>
      a.register(tidingsFastify, {
        tidings: { ...tidings, fetch: (request) => readUpTo(request, limit) },
      }),
    );
    const url = `${base}/v1/notifications`;
    const large = await fetch(url, { method: 'POST', body: new Uint8Array(4 * 1024 * 1024).fill(97) });
    expect(`${large.status} ${await large.text()}`).toBe('413 too large');
    expect(await (await fetch(url, { method: 'POST', body: 'small' })).text()).toBe('5');
  });

  it('closes Tidings when the app closes (unless told not to), before the server waits for its streams', async () => {
    const closing = fakeTidings();
    const kept = fakeTidings();
    const { app } = await served(closing.tidings);
    const { app: other } = await served(kept.tidings, { closeTidings: false });
    await app.close();
    await other.close();
    expect(closing.closes()).toBe(1);
    expect(kept.closes()).toBe(0);
  });

  it('refuses to register without a Tidings instance', async () => {
    const app = Fastify();
    apps.push(app);
    // @ts-expect-error: `tidings` is required.
    await expect(app.register(tidingsFastify, { prefix: '/notify' }).ready()).rejects.toThrow(
      'tidingsFastify: `tidings` must be the instance createTidings() returned',
    );
  });
});

/** A fake core's read of a streamed body: 413 once past `limit` bytes (cancelling the rest), else the size. */
async function readUpTo(request: Request, limit: number): Promise<Response> {
  if (Number(request.headers.get('content-length')) > limit) return new Response('too large', { status: 413 });
  const reader = request.body!.getReader();
  let size = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    size += chunk.value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return new Response('too large', { status: 413 });
    }
  }
  return new Response(String(size));
}
