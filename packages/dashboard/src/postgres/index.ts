/**
 * `@tidings/dashboard/postgres`: the dashboard's store in the schema of a PostgreSQL store
 * (`@tidings/store-postgres`), apart from the main entry so that an app on SQLite needs none of it.
 */
export { createPostgresDashboardStore } from './dashboard-store.js';
export { migratePostgresDashboard } from './migrations.js';
