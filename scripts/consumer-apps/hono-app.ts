// A Hono app that embeds Tidings whole: one project named by the app, no API key, a send in
// process. The same file runs as an ES module and as CommonJS.
import { serve } from '@hono/node-server';
import { createTidings } from '@tidings/core';
import { tidingsHono } from '@tidings/hono';
import { createSqliteStore } from '@tidings/store-sqlite';
import { Hono } from 'hono';

const store = createSqliteStore({ path: 'tidings.db' });
const tidings = createTidings({ store, project: 'my-app' });
const app = new Hono();
app.route('/notify', tidingsHono(tidings));

// The signed-in user's connect token (the app's own session check decides who that is).
app.post('/token/:user', async (c) => {
  const baseUrl = `${new URL(c.req.url).origin}/notify`;
  return c.json(await tidings.createConnectToken({ recipient: c.req.param('user'), baseUrl }));
});
app.post('/hello/:user', async (c) => {
  const { notification } = await tidings.notifications.send({ recipient: c.req.param('user'), title: 'Hello' });
  return c.json({ id: notification.id }, 201);
});

const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000) });
process.once('SIGTERM', async () => {
  await tidings.close(); // ends the open streams, which server.close() would wait for
  server.close();
  store.close();
});
