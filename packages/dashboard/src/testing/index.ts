/** `@tidings/dashboard/testing`: the conformance suite of the dashboard's store port (needs vitest). */
export { type DashboardStores, runDashboardStoreConformance } from './dashboard-store-conformance.js';
