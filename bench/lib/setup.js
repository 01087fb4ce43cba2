// Prepares a database before a server opens it: an account, a project, a live key and connect
// tokens, made in-process with the admin API (tokens are stored in the db, so the server
// accepts them).
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTidings, newId } from '@tidings/core';
import { createPostgresStore } from '@tidings/store-postgres';
import { createSqliteStore } from '@tidings/store-sqlite';
import pg from 'pg';
import { highLimits, onCleanup } from './common.js';

/** The PostgreSQL of the PostgreSQL runs: `BENCH_POSTGRES_URL`, else the local server's `test` database. */
export const benchPostgresUrl = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A `--db` URL naming a PostgreSQL schema of this run's own, dropped (and only it) at cleanup.
 */
export function postgresBenchDb() {
  const schema = `tidings_bench_${randomBytes(6).toString('hex')}`;
  onCleanup(async () => {
    const client = new pg.Client({ connectionString: benchPostgresUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });
  return `${benchPostgresUrl}?schema=${schema}`;
}

/**
 * Creates the database (`<dir>/tidings.db`, or the PostgreSQL schema of `postgres`, a `--db`
 * URL) with one live key and a connect token per recipient, and `<dir>/config.json` with high
 * limits. Returns what the benchmark needs to talk to the server.
 */
export async function prepareDatabase(dir, { recipients, postgres = null, concurrency = 1 }) {
  const db = postgres ?? join(dir, 'tidings.db');
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ limits: highLimits }));
  const store = postgres
    ? await createPostgresStore({ connectionString: postgres, maxConnections: Math.max(2, concurrency) })
    : createSqliteStore({ path: db });
  const tidings = createTidings({ store, sweepIntervalMs: 0, limits: highLimits });
  try {
    const account = await tidings.admin.createAccount({ email: 'bench@example.com', verified: true });
    const project = await tidings.admin.createProject({ accountId: account.id, name: 'bench' });
    const key = await tidings.admin.createKey({ projectId: project.id, mode: 'live', name: 'bench' });
    // `concurrency` tokens are minted at a time (a hundred thousand one by one take minutes on PostgreSQL).
    const tokens = new Array(recipients);
    let next = 0;
    const mint = async () => {
      while (next < recipients) {
        const i = next++;
        const recipient = `user-${i}`;
        const minted = await tidings.createConnectToken({ projectId: project.id, recipient, ttlSeconds: 86_400 });
        tokens[i] = { recipient, token: minted.token };
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, concurrency) }, mint));
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

/** An account and a project made with a store's own calls (for benchmarks of a store alone); the project's id. */
export async function storeProject(store, now = Date.now()) {
  const account = await store.createAccount({ id: newId('acct'), email: 'bench@example.com', verified: true, now });
  const created = await store.createProject({
    id: newId('proj'),
    accountId: account.id,
    name: 'bench',
    now,
    maxProjects: 10,
  });
  if (created.kind !== 'created') throw new Error(`createProject: ${created.kind}`);
  return created.project.id;
}

/** A `createNotification` input as the pipeline makes one, live, without a key; `at` its time. */
export function notificationInput({ projectId, recipient, title, at = Date.now() }) {
  return {
    notification: {
      id: newId('ntf', at),
      projectId,
      mode: 'live',
      recipient,
      title,
      body: null,
      url: null,
      icon: null,
      tag: null,
      data: null,
      ttl: 3600,
      createdAt: at,
      expiresAt: at + 3_600_000,
      apiKeyId: null,
      requestId: null,
      idempotencyKey: null,
    },
    newAttemptId: () => newId('att', at),
    idempotency: null,
    render: () => ({ status: 201, body: '{}' }),
  };
}
