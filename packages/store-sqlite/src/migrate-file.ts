import Database from 'better-sqlite3';
import { migrateDashboard } from './dashboard-migrations.js';
import { migrate } from './migrations.js';

/**
 * Brings the schema of a database file up to date, creating the file if missing, and tells
 * which versions it went from and to: what `tidings migrate` runs for a SQLite database (a store
 * opened on the file would also migrate it, silently). With `dashboard`, the dashboard's tables
 * too, as the standalone server uses them.
 */
export function migrateSqliteFile(
  path: string,
  busyTimeoutMs = 5000,
  options: { dashboard?: boolean } = {},
): { from: number; to: number; dashboard?: { from: number; to: number } } {
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    const from = db.pragma('user_version', { simple: true }) as number;
    const to = migrate(db);
    if (options.dashboard !== true) return { from, to };
    const applied = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'dashboard_migrations'")
      .get();
    const dashboardFrom = applied
      ? (db.prepare('SELECT coalesce(max(version), 0) AS v FROM dashboard_migrations').get() as { v: number }).v
      : 0;
    return { from, to, dashboard: { from: dashboardFrom, to: migrateDashboard(db) } };
  } finally {
    db.close();
  }
}
