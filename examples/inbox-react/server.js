// The inbox in a React app: Tidings embedded in an Express server that serves the built Vite app,
// mints the page's connect token, and sends the demo user a notification on request.
import { fileURLToPath } from 'node:url';
import { createTidings } from '@tidings/core';
import { tidingsExpress } from '@tidings/express';
import { createSqliteStore } from '@tidings/store-sqlite';
import express from 'express';

const port = Number(process.env.PORT ?? 3003);
const dbPath = process.env.TIDINGS_DB ?? fileURLToPath(new URL('./inbox.db', import.meta.url));
const app = fileURLToPath(new URL('./dist', import.meta.url));
const recipient = 'demo-user';

const store = createSqliteStore({ path: dbPath });
// One app, one project: no account or API key to make.
const tidings = createTidings({ store, project: 'inbox-react-example' });

const server = express();
server.use(tidingsExpress(tidings)); // answers /v1/*, before the body parsers

// Your server decides who the signed-in user is; here it is always demo-user.
server.post('/api/token', async (_req, res) => {
  const { token } = await tidings.createConnectToken({ recipient });
  res.type('text/plain').send(token);
});

let sent = 0;
server.post('/api/send', async (_req, res) => {
  sent++;
  const { notification } = await tidings.notifications.send({
    recipient,
    title: `Your order #${sent} shipped`,
    body: 'It is on its way.',
    url: `/orders/${sent}`,
  });
  res.status(201).json({ notification: notification.id });
});

server.use(express.static(app));

const listening = server.listen(port, () => {
  const url = `http://localhost:${listening.address().port}`;
  console.log(`listening on ${url}`);
  console.log(`open ${url} and press "Send a notification", or send one from a terminal:`);
  console.log(`  curl -X POST ${url}/api/send`);
});

async function shutdown() {
  await tidings.close(); // ends the open event streams, which server.close() would wait for
  listening.close();
  listening.closeAllConnections();
  await store.close();
  process.exit(0);
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
