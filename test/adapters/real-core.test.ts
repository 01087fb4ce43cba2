import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect as connectSocket } from 'node:net';
import { serve } from '@hono/node-server';
import { createTidings, silentLogger, type Tidings } from '@tidings/core';
import { tidingsExpress } from '@tidings/express';
import { tidingsFastify } from '@tidings/fastify';
import { tidingsHono } from '@tidings/hono';
import { createSqliteStore } from '@tidings/store-sqlite';
import { conformingFetch } from '@tidings/test-support/openapi-conformance.js';
import { readEvents } from '@tidings/test-support/sse-client.js';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';

/** The adapters with the real core, over real HTTP: the event stream included. */
let tidings: Tidings;
let server: Server;
const store = () => createSqliteStore({ path: ':memory:' });

afterEach(async () => {
  await tidings.close();
  server.closeAllConnections();
  server.close();
});

async function setUp(
  mount: (tidings: Tidings) => Promise<{ server: Server; base: string }>,
  options: { maxStreamBufferBytes?: number } = {},
) {
  tidings = createTidings({
    store: store(),
    logger: silentLogger,
    sweepIntervalMs: 0,
    limits: { perKey: 1e6, perProject: 1e6, perAccount: 1e6 },
    ...options,
  });
  const account = await tidings.admin.createAccount({ email: 'a@example.com', verified: true });
  const project = await tidings.admin.createProject({ accountId: account.id, name: 'P' });
  const key = (await tidings.admin.createKey({ projectId: project.id, mode: 'live' })).key!;
  const mounted = await mount(tidings);
  server = mounted.server;
  return { key, base: mounted.base };
}

async function deliverThroughStream(base: string, key: string) {
  const tokenResponse = await conformingFetch(`${base}/v1/connect-tokens`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ recipient: 'r1' }),
  });
  expect(tokenResponse.status).toBe(201);
  const token = await tokenResponse.json();
  expect(token.connect_url.startsWith(`${base}/v1/connect/`)).toBe(true);
  const controller = new AbortController();
  const answer = await conformingFetch(token.connect_url, { signal: controller.signal });
  // Written straight to the Node response by both adapters: the stream's headers all the same.
  expect(answer.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  expect(answer.headers.get('cache-control')).toBe('no-cache, no-transform');
  expect(answer.headers.get('x-accel-buffering')).toBe('no');
  expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  expect(answer.headers.get('request-id')).toMatch(/^req_/);
  const stream = readEvents(answer);
  await stream.next('ready');
  expect(tidings.openStreams()).toBe(1);
  const sent = await conformingFetch(`${base}/v1/notifications`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ recipient: 'r1', title: 'through the adapter' }),
  });
  expect(sent.status).toBe(201);
  const event = JSON.parse((await stream.next('notification')).data);
  expect(event.title).toBe('through the adapter');
  // The client going away ends the stream on the server.
  controller.abort();
  const deadline = Date.now() + 5000;
  while (tidings.openStreams() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(tidings.openStreams()).toBe(0);
}

async function honoServer(t: Tidings) {
  const app = new Hono();
  app.get('/', (c) => c.text('host app'));
  app.route('/', tidingsHono(t));
  let listening!: ReturnType<typeof serve>;
  const port = await new Promise<number>((resolve) => {
    listening = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
  });
  return { server: listening as Server, base: `http://127.0.0.1:${port}` };
}

describe('adapters with the real core', () => {
  it('Express, mounted under a path after express.json(): send, stream, client abort', async () => {
    const { key, base } = await setUp(async (t) => {
      const app = express();
      app.use(express.json());
      app.get('/', (_req, res) => {
        res.send('host app');
      });
      app.use('/notify', tidingsExpress(t));
      const listening = app.listen(0, '127.0.0.1');
      await once(listening, 'listening');
      const { port } = listening.address() as AddressInfo;
      return { server: listening, base: `http://127.0.0.1:${port}/notify` };
    });
    await deliverThroughStream(base, key);
    expect(await (await conformingFetch(base.replace('/notify', '/'))).text()).toBe('host app');
  });

  it('Fastify, registered under a prefix beside a JSON route: send, stream, client abort', async () => {
    const { key, base } = await setUp(async (t) => {
      const app = Fastify();
      app.post('/orders', async (request) => request.body);
      await app.register(tidingsFastify, { tidings: t, prefix: '/notify' });
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      return { server: app.server, base: `${address}/notify` };
    });
    await deliverThroughStream(base, key);
    const order = await conformingFetch(base.replace('/notify', '/orders'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"id":1}',
    });
    expect(await order.json()).toEqual({ id: 1 });
  });

  it('Fastify: a send in process reaches the stream; app.close() with it open closes Tidings first, ends it and resolves', async () => {
    let app!: ReturnType<typeof Fastify>;
    const { key, base } = await setUp(async (t) => {
      app = Fastify();
      await app.register(tidingsFastify, { tidings: t });
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      return { server: app.server, base: address };
    });
    const token = await (
      await conformingFetch(`${base}/v1/connect-tokens`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ recipient: 'r1' }),
      })
    ).json();
    const stream = readEvents(await conformingFetch(token.connect_url));
    await stream.next('ready');
    expect(tidings.openStreams()).toBe(1);
    const projectId = (await tidings.admin.listProjects((await tidings.admin.listAccounts())[0]!.id))[0]!.id;
    const { notification } = await tidings.notifications.send({ recipient: 'r1', title: 'in process' }, { projectId });
    expect(JSON.parse((await stream.next('notification')).data)).toMatchObject({ notification_id: notification.id });
    await app.close();
    expect(tidings.openStreams()).toBe(0);
    await stream.end();
  });

  it('Hono on @hono/node-server: send, stream, client abort', async () => {
    const { key, base } = await setUp(honoServer);
    await deliverThroughStream(base, key);
  });

  it('a client that stops reading is cut once the socket, Node and stream buffers are full: memory stays bounded', async () => {
    const { key, base } = await setUp(honoServer, { maxStreamBufferBytes: 256 * 1024 });
    const token = await (
      await conformingFetch(`${base}/v1/connect-tokens`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ recipient: 'slow' }),
      })
    ).json();
    // A raw socket that sends the request and then never reads: the kernel buffers fill, Node's
    // write() returns false, the adapter stops pulling, and the stream's own buffer takes the rest.
    const url = new URL(token.connect_url);
    const socket = connectSocket(Number(url.port), url.hostname);
    await once(socket, 'connect');
    socket.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`);
    socket.pause();
    while (tidings.openStreams() === 0) await new Promise((r) => setTimeout(r, 10));
    const body = 'x'.repeat(1900);
    let sent = 0;
    while (tidings.openStreams() > 0 && sent < 20_000) {
      const response = await conformingFetch(`${base}/v1/notifications`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ recipient: 'slow', title: `n${sent}`, body }),
      });
      expect(response.status).toBe(201);
      sent++;
    }
    // Cut after a few MB of socket buffers plus 256 KiB, never after all 20 000 (40 MB).
    expect(tidings.openStreams()).toBe(0);
    expect(sent).toBeLessThan(20_000);
    socket.destroy();
    // Some thousands of sends one after another (8 s alone on a quiet machine): the time they
    // take when CI runs other files beside it.
  }, 60_000);
});

/** Opens `url` as an event stream and closes it once its headers arrived: its status. */
async function streamStatus(url: string): Promise<number> {
  const controller = new AbortController();
  const answer = await fetch(url, { signal: controller.signal });
  controller.abort();
  return answer.status;
}

describe('connect_url under a mount path', () => {
  /** The host's own token route next to Tidings mounted under /notify, as docs/browsers.md shows it. */
  async function mountedUnderNotify(adapter: 'express' | 'hono' | 'fastify') {
    let projectId = '';
    const { key, base } = await setUp(async (t) => {
      projectId = (await t.admin.listProjects((await t.admin.listAccounts())[0]!.id))[0]!.id;
      const token = (origin: string, basePath?: string) =>
        t.createConnectToken({ projectId, recipient: 'r1', baseUrl: origin, ...(basePath ? { basePath } : {}) });
      if (adapter === 'express') {
        const app = express();
        app.use('/notify', tidingsExpress(t));
        app.get('/api/token', async (req, res) => {
          res.json(await token(`${req.protocol}://${req.get('host')}`, req.query.base as string | undefined));
        });
        const listening = app.listen(0, '127.0.0.1');
        await once(listening, 'listening');
        return { server: listening, base: `http://127.0.0.1:${(listening.address() as AddressInfo).port}` };
      }
      if (adapter === 'fastify') {
        const app = Fastify();
        await app.register(tidingsFastify, { tidings: t, prefix: '/notify' });
        app.get<{ Querystring: { base?: string } }>('/api/token', async (request) =>
          token(`${request.protocol}://${request.host}`, request.query.base),
        );
        return { server: app.server, base: await app.listen({ port: 0, host: '127.0.0.1' }) };
      }
      const app = new Hono();
      app.route('/notify', tidingsHono(t));
      app.get('/api/token', async (c) => c.json(await token(new URL(c.req.url).origin, c.req.query('base'))));
      let listening!: ReturnType<typeof serve>;
      const port = await new Promise<number>((resolve) => {
        listening = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
      });
      return { server: listening as Server, base: `http://127.0.0.1:${port}` };
    });
    return { key, base };
  }

  it.each(['express', 'hono', 'fastify'] as const)(
    '%s: the host’s token route and POST /v1/connect-tokens both give a URL under /notify that streams',
    async (adapter) => {
      const { key, base } = await mountedUnderNotify(adapter);
      // Before Tidings has answered a request, the mount path is what the route names.
      const named = await (await fetch(`${base}/api/token?base=/notify`)).json();
      expect(named.connect_url).toMatch(new RegExp(`^${base}/notify/v1/connect/ct_`));
      expect(await streamStatus(named.connect_url)).toBe(200);

      const viaHttp = await (
        await fetch(`${base}/notify/v1/connect-tokens`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ recipient: 'r1' }),
        })
      ).json();
      expect(viaHttp.connect_url).toMatch(new RegExp(`^${base}/notify/v1/connect/ct_`));
      expect(await streamStatus(viaHttp.connect_url)).toBe(200);

      // Once Tidings has answered under /notify, an origin alone is followed by that mount path.
      const learned = await (await fetch(`${base}/api/token`)).json();
      expect(learned.connect_url).toMatch(new RegExp(`^${base}/notify/v1/connect/ct_`));
      expect(await streamStatus(learned.connect_url)).toBe(200);

      // A request made in process, without a base path (the dashboard's first send), changes nothing.
      await tidings.fetch(new Request(`${base}/v1/notifications`, { method: 'POST' }));
      expect((await (await fetch(`${base}/api/token`)).json()).connect_url).toMatch(
        new RegExp(`^${base}/notify/v1/connect/ct_`),
      );
    },
  );
});
