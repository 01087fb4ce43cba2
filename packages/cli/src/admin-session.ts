import { type AdminApi, createTidings, type Store } from '@tidings/core';
import { openStore, storeTarget } from './open-store.js';

/**
 * Opens the database (a SQLite file, or a `postgres://` URL), runs `work` on the admin API of a
 * Tidings without timers (and on the store, for the dashboard's account commands), and closes
 * both, whatever happens: an operator command is one short session on the shared database.
 */
export async function withAdmin<T>(db: string, work: (admin: AdminApi, store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(storeTarget(db), 'admin');
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
