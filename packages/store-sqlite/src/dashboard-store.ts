/**
 * `@tidings/store-sqlite/dashboard`: the dashboard's store on this package's database, apart from the
 * main entry so that an app without `@tidings/dashboard` installed needs none of its types.
 */
import type { Store } from '@tidings/core';
import type { DashboardStore } from '@tidings/dashboard';
import { openDashboardStore } from './sqlite-store.js';

/**
 * The dashboard's port (`DashboardStore` of `@tidings/dashboard`: passwords, sessions, codes, the
 * audit log) on the database of a store that `createSqliteStore` opened: the same
 * connection, the same durability, closed with the store.
 *
 * @example
 * const store = createSqliteStore({ path: './tidings.db' });
 * app.route('/', tidingsDashboard({ tidings: createTidings({ store }), store: createSqliteDashboardStore(store) }));
 */
export function createSqliteDashboardStore(store: Store): DashboardStore {
  const dashboardStore = openDashboardStore(store);
  if (!dashboardStore) throw new TypeError('createSqliteDashboardStore needs a store made by createSqliteStore');
  return dashboardStore;
}
