import { type AdminApi, createTidings } from '@tidings/core';
import { webhooks } from '@tidings/core/node';
import type { DashboardStore } from '@tidings/dashboard';
import { openDashboardStore, openStore, storeTarget } from './open-store.js';

/**
 * Opens the database (a SQLite file, or a `postgres://` URL), runs `work` on the admin API of a
 * Tidings without timers (and on the dashboard's port, for its account commands), and closes
 * both, whatever happens: an operator command is one short session on the shared database, which
 * runs no jobs. `allowHttpWebhooks` lets webhook endpoints be created at `http:` URLs
 * (development and tests); `secretKeys` seal the secrets a command makes.
 */
export async function withAdmin<T>(
  db: string,
  work: (admin: AdminApi, dashboardStore: DashboardStore) => Promise<T>,
  options: { allowHttpWebhooks?: boolean; secretKeys?: string[] } = {},
): Promise<T> {
  const target = storeTarget(db);
  const store = await openStore(target, 'admin');
  try {
    const dashboardStore = await openDashboardStore(store);
    const tidings = createTidings({
      store,
      sweepIntervalMs: 0,
      jobs: false,
      // What a command makes (a webhook secret, a VAPID key) is sealed as the server would.
      secretKeys: options.secretKeys ?? [],
      features: [webhooks({ allowHttp: options.allowHttpWebhooks === true })],
    });
    try {
      return await work(tidings.admin, dashboardStore);
    } finally {
      await tidings.close();
    }
  } finally {
    await store.close();
  }
}
