// Prepares a database file before a server opens it: an account, a project, a live key and
// connect tokens, made in-process with the admin API (tokens are stored in the db, so the
// server accepts them).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTidings } from '@tidings/core';
import { createSqliteStore } from '@tidings/store-sqlite';
import { highLimits } from './common.js';

/**
 * Creates `<dir>/tidings.db` with one live key and a connect token per recipient, and
 * `<dir>/config.json` with high limits. Returns what the benchmark needs to talk to the server.
 */
export async function prepareDatabase(dir, { recipients }) {
  const db = join(dir, 'tidings.db');
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ limits: highLimits }));
  const store = createSqliteStore({ path: db });
  const tidings = createTidings({ store, sweepIntervalMs: 0, limits: highLimits });
  try {
    const account = await tidings.admin.createAccount({ email: 'bench@example.com', verified: true });
    const project = await tidings.admin.createProject({ accountId: account.id, name: 'bench' });
    const key = await tidings.admin.createKey({ projectId: project.id, mode: 'live', name: 'bench' });
    const tokens = [];
    for (let i = 0; i < recipients; i++) {
      const recipient = `user-${i}`;
      const minted = await tidings.createConnectToken({ projectId: project.id, recipient, ttlSeconds: 86_400 });
      tokens.push({ recipient, token: minted.token });
    }
    return { db, config, projectId: project.id, apiKey: key.key, tokens };
  } finally {
    await tidings.close();
    await store.close();
  }
}

/** A send body like a real one: title, body, url and a little data. */
export function sendBody(recipient) {
  return {
    recipient,
    title: 'Your order has shipped',
    body: 'Order #1042 left the warehouse and should arrive on Thursday.',
    url: '/orders/1042',
    data: { orderId: 1042 },
  };
}
