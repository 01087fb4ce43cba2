import { type AdminApi, createTidings, type Store } from '@tidings/core';
import { createSqliteStore } from '@tidings/store-sqlite';

/**
 * Opens the database, runs `work` on the admin API of a Tidings without timers (and on the
 * store, for the dashboard's account commands), and closes
 * both, whatever happens: an operator command is one short session on the shared file.
 */
export async function withAdmin<T>(db: string, work: (admin: AdminApi, store: Store) => Promise<T>): Promise<T> {
  // One command writes a few rows: SQLite's own checkpoint suffices, no thread for it.
  const store = createSqliteStore({ path: db, checkpointIntervalMs: 0 });
  try {
    const tidings = createTidings({ store, sweepIntervalMs: 0 });
    try {
      return await work(tidings.admin, store);
    } finally {
      await tidings.close();
    }
  } finally {
    await store.close();
  }
}
