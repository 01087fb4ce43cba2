import Database from 'better-sqlite3';
import { migrate } from './migrations.js';
import type { SqliteDatabase } from './sqlite-store.js';

/**
 * Brings the schema of a database file up to date, creating the file if missing, and tells
 * which versions it went from and to: what `tidings migrate` runs for a SQLite database (a store
 * opened on the file would also migrate it, silently). With `alsoMigrate`, the tables another
 * package keeps on the database too (`tidings migrate` passes the dashboard's migrations), given
 * the file's database once the store's own steps are applied, on the same connection; its answer
 * is `alsoMigrated`.
 */
export function migrateSqliteFile<Also = never>(
  path: string,
  busyTimeoutMs = 5000,
  options: { alsoMigrate?: (database: SqliteDatabase) => Also } = {},
): { from: number; to: number; alsoMigrated?: Also } {
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    const from = db.pragma('user_version', { simple: true }) as number;
    const to = migrate(db);
    if (!options.alsoMigrate) return { from, to };
    // This connection keeps SQLite's own synchronous setting: its commits are on disk as they return.
    const database: SqliteDatabase = { dialect: 'sqlite', connection: db, flush: () => Promise.resolve() };
    return { from, to, alsoMigrated: options.alsoMigrate(database) };
  } finally {
    db.close();
  }
}
