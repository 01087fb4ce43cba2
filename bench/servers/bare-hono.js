// Baseline: a bare Hono app on @hono/node-server that parses the same JSON body and answers 201
// (POST /v1/notifications) or 200 (GET /v1/notifications/:id). No auth, no store, no limiter.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { notificationLike, storedBody } from './baseline-object.js';

const app = new Hono();
app.post('/v1/notifications', async (c) => c.json(notificationLike(await c.req.json()), 201));
app.get('/v1/notifications/:id', (c) => c.json(notificationLike(storedBody, c.req.param('id')), 200));

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (address) => {
  console.log(`listening on http://127.0.0.1:${address.port}`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
