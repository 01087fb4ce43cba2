/**
 * `@tidings/store-postgres/sql`: for a package that keeps tables of its own in a store's schema
 * (`store.capabilities.database`, as the dashboard does), the store's own ways with SQL, so that
 * its statements behave as the store's do: qualified table names, statements prepared once per
 * connection under a name that carries the schema, int8 read as numbers, transactions that begin
 * without a round trip of their own, LIKE patterns that match text literally, and versioned
 * migrations under the store's lock.
 */
import type { Pool } from 'pg';
import { type MigrateResult, migrate } from './migrations.js';
import type { PostgresDatabase } from './postgres-store.js';

export { ACCOUNT as ACCOUNT_COLUMNS } from './columns.js';
export { createSql, type Queryable, run, type Sql, type Statement, transaction } from './db.js';
export { containsPattern } from './like.js';
export type { MigrateResult } from './migrations.js';

/**
 * The store's pool as node-postgres types it: `PostgresDatabase` declares it as a
 * `PostgresPool`, by what the main entry's types need, so that an app that never reaches for it
 * needs no `@types/pg`.
 */
export function poolOf(database: Pick<PostgresDatabase, 'pool'>): Pool {
  return database.pool as Pool;
}

/** The tables of another package in a store's schema, as {@link migrateTables} migrates them. */
export interface TableMigrations {
  /** The steps, one per version, append-only; `{schema}` stands for the quoted schema name. */
  steps: readonly string[];
  /** The table of the schema that keeps their versions (the dashboard's: `dashboard_migrations`). */
  versions: string;
  /** The package they belong to, named when a schema is newer than it knows. */
  owner: string;
}

/**
 * Brings the tables another package keeps in the store's schema up to date, and tells their
 * versions before and after: in one transaction, under the same advisory lock as the store's own
 * migrations, so instances that start together apply each step once and a failing step leaves
 * the schema as it was. A version newer than `steps` is refused rather than misread.
 */
export function migrateTables(
  database: Pick<PostgresDatabase, 'pool' | 'schema'>,
  tables: TableMigrations,
): Promise<MigrateResult> {
  return migrate(poolOf(database), database.schema, tables.steps, { table: tables.versions, owner: tables.owner });
}
