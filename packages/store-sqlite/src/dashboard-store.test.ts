import { runDashboardStoreConformance } from '@tidings/dashboard/testing';
import { createSqliteDashboardStore } from './dashboard-store.js';
import { createSqliteStore } from './sqlite-store.js';

runDashboardStoreConformance('sqlite :memory:', async () => {
  const store = createSqliteStore({ path: ':memory:' });
  return { store, dashboardStore: createSqliteDashboardStore(store) };
});
