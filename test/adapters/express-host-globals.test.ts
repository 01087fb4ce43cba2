import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTidings, silentLogger } from '@tidings/core';
import { tidingsExpress } from '@tidings/express';
import { createSqliteStore } from '@tidings/store-sqlite';
import express from 'express';
import { afterAll, expect, it } from 'vitest';

/**
 * Embedding does not change the host: an Express app that mounts Tidings with its defaults and
 * serves Tidings' requests (a stream included) keeps the process's own `Request`, `Response`
 * and `Headers`, and its own fetch code sees them. In a file of its own, so that nothing else
 * in the process (a Hono `serve()`) touched the globals first.
 */
const native = { Request: globalThis.Request, Response: globalThis.Response, Headers: globalThis.Headers };
const tidings = createTidings({
  store: createSqliteStore({ path: ':memory:' }),
  logger: silentLogger,
  sweepIntervalMs: 0,
});
let server: Server;

afterAll(async () => {
  await tidings.close();
  server.closeAllConnections();
  server.close();
});

it("leaves the host's global Request and Response untouched after mounting and serving", async () => {
  const app = express();
  app.use(tidingsExpress(tidings));
  // The host's own route, built on the globals as any fetch-style code is.
  app.get('/host', async (_req, res) => {
    const answer = new Response(JSON.stringify({ ok: true }), { headers: { 'content-type': 'application/json' } });
    res.json({
      native: answer instanceof native.Response && Object.getPrototypeOf(answer) === native.Response.prototype,
    });
  });
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const account = await tidings.admin.createAccount({ email: 'host@example.com', verified: true });
  const project = await tidings.admin.createProject({ accountId: account.id, name: 'Host' });
  const key = (await tidings.admin.createKey({ projectId: project.id, mode: 'live' })).key!;
  const minted = await fetch(`${base}/v1/connect-tokens`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ recipient: 'host-user' }),
  });
  expect(minted.status).toBe(201);
  const { token } = (await minted.json()) as { token: string };
  const stream = await fetch(`${base}/v1/connect/${token}`);
  expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
  await stream.body?.cancel();
  const sent = await fetch(`${base}/v1/notifications`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ recipient: 'host-user', title: 'hi' }),
  });
  expect([201, 409]).toContain(sent.status);
  expect((await fetch(`${base}/v1/unknown`)).status).toBe(404);

  expect(await (await fetch(`${base}/host`)).json()).toEqual({ native: true });
  expect(globalThis.Request).toBe(native.Request);
  expect(globalThis.Response).toBe(native.Response);
  expect(globalThis.Headers).toBe(native.Headers);
});
