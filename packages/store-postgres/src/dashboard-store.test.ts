import { runDashboardStoreConformance } from '@tidings/dashboard/testing';
import { createTestStore } from './test-support/test-database.js';

// Each test gets a fresh schema of its own, dropped when the suite closes the store.
runDashboardStoreConformance('postgres', async () => {
  const store = await createTestStore();
  return { store, dashboardStore: store.dashboardStore };
});
