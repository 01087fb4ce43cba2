import { createTidings, type Store, silentLogger, type Tidings, type TidingsOptions } from '@tidings/core';
import { readEvents } from '@tidings/test-support/sse-client.js';
import pg from 'pg';
import { quoteIdentifier } from '../db.js';
import { createPostgresStore } from '../postgres-store.js';
import { testDatabaseUrl } from './test-database.js';

/** An instance of an application that embeds Tidings over the store on `schema`. */
export interface AppInstance {
  tidings: Tidings;
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** Starts an instance sending in the project `project` names. */
export async function appInstance(
  schema: string,
  project: string,
  extra: Partial<TidingsOptions> = {},
): Promise<AppInstance & { store: Store }> {
  const store = extra.store ?? (await createPostgresStore({ connectionString: testDatabaseUrl, schema }));
  const tidings = createTidings({ store, project, logger: silentLogger, sweepIntervalMs: 0, ...extra });
  return {
    store,
    tidings,
    request: (path, init = {}) =>
      tidings.fetch(new Request(`http://tidings.test${path}`, init), { clientAddress: '203.0.113.9' }),
    async close() {
      await tidings.close();
      await store.close();
    },
  };
}

let recipients = 0;

/** A browser of `recipient` (else of a new one) with its stream open on `on`, and the titles it has received. */
export async function openBrowser(on: AppInstance, recipient = `user-${recipients++}`) {
  const token = await on.tidings.createConnectToken({ recipient });
  const stream = readEvents(await on.request(`/v1/connect/${token.token}`));
  const ready = JSON.parse((await stream.next('ready')).data) as { browser_id: string };
  const titles = (): string[] =>
    stream.events.filter((event) => event.event === 'notification').map((event) => JSON.parse(event.data).title);
  return { recipient, browserId: ready.browser_id, stream, titles };
}

/** Counts of the Tidings tables on `schema`, read by the application's pool. */
export function tidingsTables(pool: pg.Pool, schema: string) {
  const t = (table: string) => `${quoteIdentifier(schema)}.${quoteIdentifier(table)}`;
  return {
    async notificationsTo(recipient: string): Promise<number> {
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${t('notifications')} WHERE recipient = $1`, [
        recipient,
      ]);
      return rows[0].n;
    },
    async keyRecords(key: string): Promise<number> {
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${t('idempotency_keys')} WHERE key = $1`, [
        key,
      ]);
      return rows[0].n;
    },
    async usage(projectId: string): Promise<number> {
      const { rows } = await pool.query(
        `SELECT coalesce(sum(notifications), 0)::int AS n FROM ${t('usage_days')} WHERE project_id = $1`,
        [projectId],
      );
      return rows[0].n;
    },
  };
}

/** The application's pool on the test database. */
export function appPool(): pg.Pool {
  return new pg.Pool({ connectionString: testDatabaseUrl, max: 4 });
}
