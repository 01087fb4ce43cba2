import { randomBytes } from 'node:crypto';
import type { Store } from '@tidings/core';
import pg from 'pg';
import { quoteIdentifier } from '../db.js';
import type { PostgresStoreOptions } from '../options.js';
import { createPostgresStore, type PostgresStore } from '../postgres-store.js';

/** The PostgreSQL the tests use: `TIDINGS_TEST_DATABASE_URL`, else the local server's `test` database. */
export const testDatabaseUrl = process.env.TIDINGS_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** A schema name no other test run uses. */
export function randomSchema(prefix = 'tidings_test'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** Drops one schema and everything in it: only the schema a test made. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
  } finally {
    await client.end();
  }
}

/** A store on a schema of its own; its `close()` also drops the schema. */
export async function createTestStore(
  options: Omit<PostgresStoreOptions, 'connectionString' | 'schema' | 'pool'> = {},
): Promise<PostgresStore & { schema: string }> {
  const schema = randomSchema();
  const store = await createPostgresStore({ ...options, connectionString: testDatabaseUrl, schema });
  return {
    ...store,
    schema,
    async close() {
      await store.close();
      await dropSchema(schema);
    },
  };
}

/** A query as a client of the pool sent it: a prepared statement's name, the text and the values. */
export interface WatchedQuery {
  name?: string;
  text?: string;
  values?: unknown[];
}

/**
 * Calls `seen` with every query that a client of the pool sends: a config object as it is, a
 * query given as text alone (such as `BEGIN`) as `{ text }`.
 */
export function watchQueries(pool: pg.Pool, seen: (query: WatchedQuery) => void): void {
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const config = args[0];
      if (typeof config === 'string') seen({ text: config });
      else if (typeof config === 'object' && config !== null) seen(config as WatchedQuery);
      return query(...args);
    };
  });
}

/** A store on a fresh schema and on a pool of its own that tells each statement it sends. */
export interface WatchedStore {
  schema: string;
  pool: pg.Pool;
  store: Store;
  /** Closes the store and the pool, then drops the schema. */
  close(): Promise<void>;
}

/**
 * A store whose statements `heard` is told of, in order: a prepared one by its name without the
 * schema's prefix, another by its text (`BEGIN`, `COMMIT`, …).
 */
export async function createWatchedStore(heard: (statement: string) => void, poolMax = 10): Promise<WatchedStore> {
  const schema = randomSchema();
  const pool = new pg.Pool({ connectionString: testDatabaseUrl, max: poolMax });
  watchQueries(pool, (query) => heard(query.name ? query.name.replace(/^tidings_\w{12}_/, '') : (query.text ?? '')));
  const store = await createPostgresStore({ pool, schema });
  return {
    schema,
    pool,
    store,
    async close() {
      await store.close();
      await pool.end();
      await dropSchema(schema);
    },
  };
}

/**
 * Has auto_explain (shipped with PostgreSQL) tell this connection the plan of every statement it
 * runs from now on, each pushed onto `plans` as the notice's text.
 */
export async function explainPlans(client: pg.ClientBase, plans: string[]): Promise<void> {
  client.on('notice', (notice) => plans.push(notice.message ?? ''));
  await client.query(
    "LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_level = notice; SET client_min_messages = notice",
  );
}
