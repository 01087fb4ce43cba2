// An Express app that embeds Tidings whole: one project named by the app, no API key, a send in
// process. The same file runs as an ES module and as CommonJS.
import { createTidings } from '@tidings/core';
import { tidingsExpress } from '@tidings/express';
import { createSqliteStore } from '@tidings/store-sqlite';
import express from 'express';

const store = createSqliteStore({ path: 'tidings.db' });
const tidings = createTidings({ store, project: 'my-app' });
const app = express();
app.use('/notify', tidingsExpress(tidings));

// The signed-in user's connect token (the app's own session check decides who that is).
app.post('/token/:user', async (req, res) => {
  const baseUrl = `${req.protocol}://${req.get('host')}/notify`;
  res.json(await tidings.createConnectToken({ recipient: req.params.user, baseUrl }));
});
app.post('/hello/:user', async (req, res) => {
  const { notification } = await tidings.notifications.send({ recipient: req.params.user, title: 'Hello' });
  res.status(201).json({ id: notification.id });
});

const server = app.listen(Number(process.env.PORT ?? 3000));
process.once('SIGTERM', async () => {
  await tidings.close(); // ends the open streams, which server.close() would wait for
  server.close();
  store.close();
});
