// A Fastify app that embeds Tidings whole: one project named by the app, no API key, a send in
// process. The same file runs as an ES module and as CommonJS.
import { createTidings } from '@tidings/core';
import { tidingsFastify } from '@tidings/fastify';
import { createSqliteStore } from '@tidings/store-sqlite';
import Fastify from 'fastify';

const store = createSqliteStore({ path: 'tidings.db' });
const tidings = createTidings({ store, project: 'my-app' });
const app = Fastify();
// On app.close(), the plugin closes Tidings first: that ends the open streams.
app.register(tidingsFastify, { tidings, prefix: '/notify' });

// The signed-in user's connect token (the app's own session check decides who that is).
app.post<{ Params: { user: string } }>('/token/:user', async (request) => {
  const baseUrl = `${request.protocol}://${request.host}/notify`;
  return tidings.createConnectToken({ recipient: request.params.user, baseUrl });
});
app.post<{ Params: { user: string } }>('/hello/:user', async (request, reply) => {
  const { notification } = await tidings.notifications.send({ recipient: request.params.user, title: 'Hello' });
  return reply.code(201).send({ id: notification.id });
});

app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
process.once('SIGTERM', async () => {
  await app.close();
  store.close();
});
