/**
 * `@tidings/store-postgres/dashboard`: the dashboard's store on this package's database, apart from the
 * main entry so that an app without `@tidings/dashboard` installed needs none of its types.
 */
import type { Store } from '@tidings/core';
import type { DashboardStore } from '@tidings/dashboard';
import { openDashboardStore } from './postgres-store.js';

/**
 * The dashboard's port (`DashboardStore` of `@tidings/dashboard`: passwords, sessions, codes, the
 * audit log) on the pool and schema of a store that `createPostgresStore` opened.
 *
 * @example
 * const store = await createPostgresStore({ connectionString });
 * app.route('/', tidingsDashboard({ tidings: createTidings({ store }), store: createPostgresDashboardStore(store) }));
 */
export function createPostgresDashboardStore(store: Store): DashboardStore {
  const dashboardStore = openDashboardStore(store);
  if (!dashboardStore) throw new TypeError('createPostgresDashboardStore needs a store made by createPostgresStore');
  return dashboardStore;
}
