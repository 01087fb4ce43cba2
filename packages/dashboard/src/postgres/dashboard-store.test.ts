import { createTestStore } from '../../../store-postgres/src/test-support/test-database.js';
import { runDashboardStoreConformance } from '../testing/dashboard-store-conformance.js';
import { createPostgresDashboardStore } from './dashboard-store.js';

// Each test gets a fresh schema of its own, dropped when the suite closes the store.
runDashboardStoreConformance('postgres', async () => {
  const store = await createTestStore();
  return { store, dashboardStore: createPostgresDashboardStore(store) };
});
