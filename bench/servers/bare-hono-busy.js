// The read baseline with a fixed amount of synchronous work per request: the bare Hono app of
// bare-hono.js whose GET handler first spins for the given microseconds, standing in for what a
// real handler does (hash a key, read a store, render). Usage: node bare-hono-busy.js MICROSECONDS
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { notificationLike, storedBody } from './baseline-object.js';

const busyMs = Number(process.argv[2] ?? 0) / 1000;

const app = new Hono();
app.get('/v1/notifications/:id', (c) => {
  const until = performance.now() + busyMs;
  while (performance.now() < until) {
    // spin: the stand-in for a handler's own work
  }
  return c.json(notificationLike(storedBody, c.req.param('id')), 200);
});

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (address) => {
  console.log(`listening on http://127.0.0.1:${address.port}`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
