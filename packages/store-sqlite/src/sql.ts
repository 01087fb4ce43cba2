/**
 * `@tidings/store-sqlite/sql`: for a package that keeps tables of its own on a store's database
 * (`store.capabilities.database`, as the dashboard does), what its SQL needs of the store's own
 * conventions, so that it reads the store's tables as the store does: the connection as
 * better-sqlite3 types it, booleans as 0 and 1, an account's row as its record, and LIKE patterns
 * that match text literally.
 */
import type Database from 'better-sqlite3';
import type { SqliteDatabase } from './sqlite-store.js';

export { containsPattern } from './like.js';
export { type AccountRow, accountFromRow, type Bit, bit } from './rows.js';

/** A better-sqlite3 `Database`, as the store's connection is. */
export type SqliteConnection = Database.Database;

/**
 * The store's connection as better-sqlite3 types it: `SqliteDatabase` declares it by what the
 * main entry's types need, so that an app that never reaches for it needs no
 * `@types/better-sqlite3`.
 */
export function connectionOf(database: Pick<SqliteDatabase, 'connection'>): SqliteConnection {
  return database.connection as SqliteConnection;
}
