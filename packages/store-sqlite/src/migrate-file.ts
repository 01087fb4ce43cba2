import Database from 'better-sqlite3';
import { migrate } from './migrations.js';

/**
 * Brings the schema of a database file up to date, creating the file if missing, and tells
 * which versions it went from and to: what `tidings migrate` runs for a SQLite database (a store
 * opened on the file would also migrate it, silently).
 */
export function migrateSqliteFile(path: string, busyTimeoutMs = 5000): { from: number; to: number } {
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    const from = db.pragma('user_version', { simple: true }) as number;
    const to = migrate(db);
    return { from, to };
  } finally {
    db.close();
  }
}
