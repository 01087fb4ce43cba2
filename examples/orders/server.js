// Orders and their notifications in one transaction: the app's own table and Tidings' store share
// one SQLite file, and an order and the notification about it commit together, or neither does.
import { fileURLToPath } from 'node:url';
import { createTidings, TidingsError } from '@tidings/core';
import { tidingsExpress } from '@tidings/express';
import { createSqliteStore } from '@tidings/store-sqlite';
import Database from 'better-sqlite3';
import express from 'express';

const port = Number(process.env.PORT ?? 3002);
const dbPath = process.env.TIDINGS_DB ?? fileURLToPath(new URL('./orders.db', import.meta.url));

const store = createSqliteStore({ path: dbPath });
// One app, one project: no account or API key to make.
const tidings = createTidings({ store, project: 'orders-example' });

// The app's own connection to the same file, with a table of its own.
const db = new Database(dbPath);
db.pragma('busy_timeout = 5000');
db.exec(`CREATE TABLE IF NOT EXISTS orders (
  id INTEGER PRIMARY KEY,
  buyer TEXT NOT NULL,
  total INTEGER NOT NULL CHECK (total > 0)
)`);
const insertOrder = db.prepare('INSERT INTO orders (buyer, total) VALUES (?, ?) RETURNING id');

const app = express();
app.use(tidingsExpress(tidings)); // before the body parsers
app.use(express.json());

// Your server decides who the signed-in user is; here the buyer is always demo-user.
app.get('/me/stream', async (req, res) => {
  const token = await tidings.createConnectToken({
    recipient: 'demo-user',
    baseUrl: `${req.protocol}://${req.get('host')}`,
  });
  res.redirect(token.connect_url);
});

// An order and its notification: the checks first (they may wait), then one synchronous
// transaction. An order the table refuses (total 0) rolls the notification back with it.
app.post('/orders', async (req, res, next) => {
  const { buyer = 'demo-user', total } = req.body ?? {};
  try {
    const prepared = await tidings.notifications.prepare({ recipient: buyer, title: `Order received: ${total} €` });
    const placed = db.transaction(() => {
      const { id } = insertOrder.get(buyer, total);
      const { notification } = tidings.notifications.sendSync(prepared, { transaction: db });
      return { order: id, notification: notification.id };
    })();
    res.status(201).json(placed);
  } catch (error) {
    if (error instanceof TidingsError) res.status(error.status).json({ code: error.code, detail: error.message });
    else if (String(error?.code).startsWith('SQLITE_CONSTRAINT')) res.status(400).json({ detail: error.message });
    else next(error);
  }
});

const server = app.listen(port, () => {
  const url = `http://localhost:${server.address().port}`;
  console.log(`listening on ${url}`);
  console.log(`connect as demo-user (curl standing in for a browser):\n  curl -N -L ${url}/me/stream`);
  console.log(
    `then, in another terminal, place an order (its notification arrives), and one the table refuses (nothing arrives):\n  curl -X POST ${url}/orders -H "Content-Type: application/json" -d '{"total":25}'\n  curl -X POST ${url}/orders -H "Content-Type: application/json" -d '{"total":0}'`,
  );
});

async function shutdown() {
  await tidings.close(); // ends the open event streams, which server.close() would wait for
  server.close();
  server.closeAllConnections();
  db.close();
  await store.close();
  process.exit(0);
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
