import { once } from 'node:events';
import { Agent, createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect as connectSocket } from 'node:net';
import type { RequestContext } from '@tidings/core';
import { stubTidings, until } from '@tidings/core/testing';
import { lastServer, listening, rawRequest } from '@tidings/test-support/node-servers.js';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { tidingsExpress } from './index.js';

interface Seen {
  request: Request;
  context: RequestContext | undefined;
  body: string;
}

/** A Tidings that records what it receives and answers with `respond`. */
function fakeTidings(respond: (request: Request) => Response = () => new Response('ok')) {
  const seen: Seen[] = [];
  const handled: string[] = [];
  const tidings = stubTidings({
    async fetch(request: Request, context?: RequestContext) {
      seen.push({ request, context, body: await request.text() });
      return respond(request);
    },
    handles(pathname: string) {
      handled.push(pathname);
      return /^\/v1\/(notifications|connect|events|browsers|connect-tokens)/.test(pathname);
    },
  });
  return { tidings, seen, handled };
}

function listen(app: express.Express): Promise<string> {
  return listening(createServer(app));
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

/** Sends `head` as is over a raw socket and resolves with the status line of the answer. */
async function rawStatusLine(base: string, head: string): Promise<string> {
  const { hostname, port } = new URL(base);
  const socket = connectSocket(Number(port), hostname);
  await once(socket, 'connect');
  socket.end(head);
  let received = '';
  socket.setEncoding('utf8');
  for await (const chunk of socket) received += chunk;
  return received.split('\r\n')[0]!;
}

describe('tidingsExpress', () => {
  it('hands method, absolute URL, headers, body and client address to the core', async () => {
    const { tidings, seen } = fakeTidings();
    const app = express();
    app.use(tidingsExpress(tidings));
    const base = await listen(app);
    const body = JSON.stringify({ recipient: 'u1', title: 'Hi' });
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
    expect(request.headers.get('content-type')).toBe('application/json');
    expect(received).toBe(body);
    expect(context).toEqual({
      clientAddress: '127.0.0.1',
      basePath: '',
      eventStream: { open: expect.any(Function) },
      writesTextAnswers: true,
    });
  });

  it('writes status, headers (each Set-Cookie apart) and body back', async () => {
    const { tidings } = fakeTidings(() => {
      const headers = new Headers({ 'content-type': 'application/problem+json', 'retry-after': '7' });
      headers.append('set-cookie', 'a=1; Path=/');
      headers.append('set-cookie', 'b=2, c; Path=/');
      return new Response('{"code":"RATE_LIMITED"}', { status: 429, headers });
    });
    const app = express();
    app.use(tidingsExpress(tidings));
    const response = await fetch(`${await listen(app)}/v1/notifications/ntf_1`);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2, c; Path=/']);
    expect(await response.text()).toBe('{"code":"RATE_LIMITED"}');
  });

  it('writes a body that comes in one piece with a Content-Length, and a streamed one whole', async () => {
    const { tidings } = fakeTidings((request) => {
      if (request.url.endsWith('/one')) return new Response('{"id":"ntf_1"}', { status: 201 });
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          for (const part of ['a', 'b', 'c']) {
            await new Promise((resolve) => setTimeout(resolve, 5));
            controller.enqueue(new TextEncoder().encode(part));
          }
          controller.close();
        },
      });
      return new Response(body, { headers: { 'content-type': 'application/octet-stream' } });
    });
    const app = express();
    app.use(tidingsExpress(tidings));
    const base = await listen(app);
    const rawHeaders = (path: string) => rawRequest(`${base}${path}`);
    const one = await rawHeaders('/v1/notifications/one');
    expect(one.headers['content-length']).toBe('14');
    expect(one.headers['transfer-encoding']).toBeUndefined();
    expect(one.body).toBe('{"id":"ntf_1"}');
    const streamed = await rawHeaders('/v1/notifications/streamed');
    expect(streamed.headers['transfer-encoding']).toBe('chunked');
    expect(streamed.body).toBe('abc');
  });

  it('answers HEAD and bodiless statuses without a body', async () => {
    const { tidings } = fakeTidings((request) =>
      request.method === 'HEAD' ? new Response('ignored') : new Response(null, { status: 204 }),
    );
    const app = express();
    app.use(tidingsExpress(tidings));
    const base = await listen(app);
    expect((await fetch(`${base}/v1/connect/ct_1`, { method: 'HEAD' })).status).toBe(200);
    const disconnected = await fetch(`${base}/v1/browsers/brw_1/disconnect`, { method: 'POST' });
    expect(disconnected.status).toBe(204);
    expect(await disconnected.text()).toBe('');
  });

  it('streams an event stream: headers at once, each event as it is produced', async () => {
    const feed = manualStream();
    const { tidings } = fakeTidings(() => new Response(feed.stream, { headers: sse }));
    const app = express();
    app.use(tidingsExpress(tidings));
    // The headers arrive before any event exists.
    const response = await fetch(`${await listen(app)}/v1/connect/ct_1`);
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
    const app = express();
    app.use(tidingsExpress(tidings));
    const client = new AbortController();
    const response = await fetch(`${await listen(app)}/v1/connect/ct_1`, { signal: client.signal });
    feed.push('event: ready\n\n');
    await response.body!.getReader().read();
    client.abort();
    await feed.cancel;
    const { signal } = seen[0]!.request;
    if (!signal.aborted) await once(signal, 'abort');
    expect(signal.aborted).toBe(true);
  });

  it('stops pulling from the body while the client does not read', async () => {
    const chunk = new Uint8Array(64 * 1024).fill(120);
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>({
      // Each chunk a macrotask later, so that a bridge that ignored backpressure would let the
      // timers below run (and fail the test) rather than starve the event loop.
      async pull(controller) {
        await new Promise((resolve) => setImmediate(resolve));
        pulls++;
        controller.enqueue(chunk);
      },
    });
    const bound = (32 * 1024 * 1024) / chunk.byteLength;
    const { tidings } = fakeTidings(() => new Response(stream, { headers: sse }));
    const app = express();
    app.use(tidingsExpress(tidings));
    const url = new URL(`${await listen(app)}/v1/connect/ct_1`);
    const [incoming] = (await new Promise((resolve) => {
      const request = httpRequest(url, (response) => resolve([response]));
      request.end();
    })) as [IncomingMessage];
    incoming.pause();
    // Wait until the socket buffers are full and pulling has stopped (no pull for 200 ms), or has
    // gone past the bound. A loaded machine can only make the wait longer, not the test fail.
    await until(
      async () => {
        const before = pulls;
        await new Promise((resolve) => setTimeout(resolve, 200));
        return pulls === before || pulls >= bound;
      },
      { what: 'pulling to stop', timeoutMs: 15_000 },
    );
    // A few socket buffers hold a few MiB; unbounded pulling goes on for as long as memory lasts.
    expect(pulls).toBeLessThan(bound);
    // Reading again lets the bridge pull again.
    let received = 0;
    incoming.on('data', (data: Buffer) => {
      received += data.byteLength;
    });
    incoming.resume();
    const stalledAt = pulls;
    while (pulls < stalledAt + 20) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(received).toBeGreaterThan(0);
    incoming.destroy();
  });

  it('gets a refusal out, and keeps serving, when the core reads a large body partly or not at all', async () => {
    const limit = 32 * 1024;
    const app = express();
    app.use(
      tidingsExpress({
        ...fakeTidings().tidings,
        // As the core does: refuse on a declared length at once, else read up to the limit.
        async fetch(request) {
          if (Number(request.headers.get('content-length')) > limit) return new Response('too large', { status: 413 });
          return readUpTo(request, limit);
        },
      }),
    );
    const url = `${await listen(app)}/v1/notifications`;
    const statuses = [];
    for (const size of [40_000, 1_000_000, 20_000_000]) {
      const body = new Uint8Array(size).fill(97);
      const sized = await fetch(url, { method: 'POST', body });
      statuses.push(`${sized.status} ${await sized.text()}`);
      const streamed = await fetch(url, {
        method: 'POST',
        body: new Blob([body]).stream(),
        duplex: 'half',
      } as RequestInit);
      statuses.push(`${streamed.status} ${await streamed.text()}`);
    }
    expect(statuses).toEqual(Array(6).fill('413 too large'));
    expect(await (await fetch(url, { method: 'POST', body: 'small' })).text()).toBe('5');
  });

  it('keeps a path that looks like an authority a path', async () => {
    const fake = fakeTidings();
    const app = express();
    app.use(tidingsExpress({ ...fake.tidings, handles: () => true }));
    const base = await listen(app);
    expect((await fetch(`${base}//evil.test/v1/events`)).status).toBe(200);
    const url = new URL(fake.seen[0]!.request.url);
    expect(url.host).toBe(new URL(base).host);
    expect(url.pathname).toBe('//evil.test/v1/events');
  });

  it('takes localhost when an HTTP/1.0 request has no Host, and refuses a malformed Host with 400', async () => {
    const { tidings, seen } = fakeTidings();
    const app = express();
    app.use(tidingsExpress(tidings));
    const base = await listen(app);
    expect(await rawStatusLine(base, 'GET /v1/events HTTP/1.0\r\n\r\n')).toBe('HTTP/1.1 200 OK');
    expect(seen[0]?.request.url).toBe('http://localhost/v1/events');
    for (const host of ['evil.test@127.0.0.1', 'a b']) {
      const head = `GET /v1/events HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
      expect(await rawStatusLine(base, head)).toBe('HTTP/1.1 400 Bad Request');
    }
    expect(seen).toHaveLength(1);
  });

  it('answers HEAD without reading a streamed body, which it cancels', async () => {
    let pulls = 0;
    let ended!: (how: string) => void;
    const end = new Promise<string>((resolve) => {
      ended = resolve;
    });
    const { tidings } = fakeTidings(() => {
      // Long, as an event stream is: an adapter that wrote it would pull it to the end.
      const body = new ReadableStream<Uint8Array>(
        {
          pull(controller) {
            pulls++;
            controller.enqueue(new TextEncoder().encode(': heartbeat\n\n'));
            if (pulls === 1000) {
              controller.close();
              ended('read to the end');
            }
          },
          cancel() {
            ended('cancelled');
          },
        },
        { highWaterMark: 0 },
      );
      return new Response(body, { headers: sse });
    });
    const app = express();
    app.use(tidingsExpress(tidings));
    const response = await fetch(`${await listen(app)}/v1/connect/ct_1`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await end).toBe('cancelled');
    expect(pulls).toBe(0);
  });

  it('hands a failure of getClientAddress to Express’s error handling', async () => {
    const { tidings, seen } = fakeTidings();
    const app = express();
    app.use(
      tidingsExpress(tidings, {
        getClientAddress: () => {
          throw new Error('no address');
        },
      }),
    );
    app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).send(`handled ${error.message}`);
    });
    expect(await (await fetch(`${await listen(app)}/v1/events`, { method: 'POST' })).text()).toBe('handled no address');
    expect(seen).toHaveLength(0);
  });

  it('drains the rest of a streamed body the core stopped reading, and serves the next request on the connection', async () => {
    const limit = 32 * 1024;
    const app = express();
    app.use(
      tidingsExpress({
        ...fakeTidings().tidings,
        fetch: (request) => readUpTo(request, limit),
      }),
    );
    const url = `${await listen(app)}/v1/notifications`;
    let connections = 0;
    lastServer().on('connection', () => connections++);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = (body: Uint8Array) =>
      new Promise<string>((resolve, reject) => {
        const request = httpRequest(url, { method: 'POST', agent, headers: { 'transfer-encoding': 'chunked' } });
        request.on('response', (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            text += chunk;
          });
          response.on('end', () => resolve(`${response.statusCode} ${text}`));
        });
        request.on('error', reject);
        request.end(body);
      });
    try {
      expect(await post(new Uint8Array(4 * 1024 * 1024).fill(97))).toBe('413 too large');
      expect(await post(new TextEncoder().encode('small'))).toBe('200 5');
      expect(connections).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it('takes the mount path as the base path', async () => {
    const { tidings, seen, handled } = fakeTidings();
    const app = express();
    app.use('/notify', tidingsExpress(tidings));
    const base = await listen(app);
    expect((await fetch(`${base}/notify/v1/events`, { method: 'POST', body: '{}' })).status).toBe(200);
    expect(handled).toEqual(['/v1/events']);
    expect(seen[0]?.context?.basePath).toBe('/notify');
    expect(seen[0]?.request.url).toBe(`${base}/notify/v1/events`);
  });

  it('passes other paths to the next handler', async () => {
    const { tidings, seen } = fakeTidings();
    const app = express();
    app.use(tidingsExpress(tidings));
    app.get('/', (_req, res) => {
      res.send('home');
    });
    app.get('/v1/mine', (_req, res) => {
      res.send('mine');
    });
    const base = await listen(app);
    expect(await (await fetch(`${base}/`)).text()).toBe('home');
    expect(await (await fetch(`${base}/v1/mine`)).text()).toBe('mine');
    expect(seen).toHaveLength(0);
  });

  it('still works after express.json(), from the parsed body', async () => {
    const { tidings, seen } = fakeTidings();
    const app = express();
    app.use(express.json());
    app.use(tidingsExpress(tidings));
    const base = await listen(app);
    await fetch(`${base}/v1/notifications`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{ "recipient": "u1",  "title": "Hé" }',
    });
    // A text/plain beacon is not the JSON parser's: it streams through as sent.
    await fetch(`${base}/v1/browsers/brw_1/disconnect`, { method: 'POST', body: 'bs_secret' });
    expect(seen.map((s) => s.body)).toEqual(['{"recipient":"u1","title":"Hé"}', 'bs_secret']);
    const rebuilt = seen[0]!.request;
    expect(rebuilt.headers.get('content-type')).toBe('application/json');
    expect(rebuilt.headers.get('content-length')).toBeNull();
  });

  it('hands a core failure to Express’s error handling', async () => {
    const { tidings } = fakeTidings(() => {
      throw new Error('boom');
    });
    const app = express();
    app.use(tidingsExpress(tidings));
    app.use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(500).send('handled');
    });
    expect(await (await fetch(`${await listen(app)}/v1/events`, { method: 'POST' })).text()).toBe('handled');
  });
});

/** A fake core's read of a streamed body: 413 once past `limit` bytes (cancelling the rest), else the size. */
async function readUpTo(request: Request, limit: number): Promise<Response> {
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
