// Tidings embedded in an Express app: the app keeps its own routes, Tidings answers /v1/*.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createTidings } from '@tidings/core';
import { tidingsExpress } from '@tidings/express';
import { createSqliteStore } from '@tidings/store-sqlite';
import express from 'express';

const port = Number(process.env.PORT ?? 3001);
const dbPath = process.env.TIDINGS_DB ?? fileURLToPath(new URL('./tidings.db', import.meta.url));
const demoPath = fileURLToPath(new URL('./.tidings-demo.json', import.meta.url));

const store = createSqliteStore({ path: dbPath });
const tidings = createTidings({ store });

/** On the first run, an account, a project and a live key, as an operator would create them. */
async function demoProject() {
  if ((await tidings.admin.listAccounts()).length > 0) return JSON.parse(await readFile(demoPath, 'utf8'));
  const account = await tidings.admin.createAccount({ email: 'demo@example.com', verified: true });
  const project = await tidings.admin.createProject({ accountId: account.id, name: 'Example' });
  const key = await tidings.admin.createKey({ projectId: project.id, mode: 'live' });
  const demo = { projectId: project.id, liveKey: key.key };
  await writeFile(demoPath, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return demo;
}
const demo = await demoProject();

const app = express();
// Before the body parsers, so that Tidings reads request bodies as they were sent.
app.use(tidingsExpress(tidings));
app.use(express.json());
app.get('/', (_req, res) => {
  res.type('text').send('An app with Tidings inside. Its own routes live next to /v1/*.\n');
});
// Your server decides who the signed-in user is and mints a connect token for them. Here the
// user is always demo-user, and the route redirects to the event stream so curl can follow it.
app.get('/me/stream', async (req, res) => {
  const token = await tidings.createConnectToken({
    projectId: demo.projectId,
    recipient: 'demo-user',
    baseUrl: `${req.protocol}://${req.get('host')}`,
  });
  res.redirect(token.connect_url);
});

const server = app.listen(port, () => {
  const url = `http://localhost:${server.address().port}`;
  console.log(`listening on ${url}`);
  console.log(`connect as demo-user (curl standing in for a browser):\n  curl -N -L ${url}/me/stream`);
  console.log(
    `then, in another terminal, send demo-user a notification:\n  curl -X POST ${url}/v1/notifications -H "Authorization: Bearer ${demo.liveKey}" -H "Content-Type: application/json" -d '{"recipient":"demo-user","title":"Hello from Tidings"}'`,
  );
});

async function shutdown() {
  await tidings.close(); // ends the open event streams
  server.close();
  server.closeAllConnections();
  await store.close();
  process.exit(0);
}
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
