import { type AdminApi, createTidings } from '@tidings/core';
import type { DashboardStore } from '@tidings/dashboard';
import { openDashboardStore, openStore, storeTarget } from './open-store.js';

/**
 * Opens the database (a SQLite file, or a `postgres://` URL), runs `work` on the admin API of a
 * Tidings without timers (and on the dashboard's port, for its account commands), and closes
 * both, whatever happens: an operator command is one short session on the shared database.
 */
export async function withAdmin<T>(
  db: string,
  work: (admin: AdminApi, dashboardStore: DashboardStore) => Promise<T>,
): Promise<T> {
  const target = storeTarget(db);
  const store = await openStore(target, 'admin');
  try {
    const dashboardStore = await openDashboardStore(store, target);
    const tidings = createTidings({ store, sweepIntervalMs: 0 });
    try {
      return await work(tidings.admin, dashboardStore);
    } finally {
      await tidings.close();
    }
  } finally {
    await store.close();
  }
}
