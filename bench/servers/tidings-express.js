// Tidings through the Express adapter, on the SQLite file store: the same setup as
// `tidings serve`, with Express in place of Hono.
// Usage: node tidings-express.js DB CONFIG
import { readFileSync } from 'node:fs';
import { createTidings } from '@tidings/core';
import { tidingsExpress } from '@tidings/express';
import { createSqliteStore } from '@tidings/store-sqlite';
import express from 'express';

const [db, configPath] = process.argv.slice(2);
const config = JSON.parse(readFileSync(configPath, 'utf8'));
const store = createSqliteStore({ path: db });
const tidings = createTidings({ ...config, store });

const app = express();
// Mounted before any body parser, as the adapter recommends: the body reaches Tidings as sent.
app.use(tidingsExpress(tidings));

const server = app.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
process.once('SIGTERM', async () => {
  const closed = new Promise((resolve) => server.close(resolve));
  await tidings.close();
  server.closeAllConnections();
  await closed;
  await store.close();
  process.exit(0);
});
