/**
 * `@tidings/dashboard/sqlite`: the dashboard's store on the database of a SQLite store
 * (`@tidings/store-sqlite`), apart from the main entry so that an app on PostgreSQL needs none of it.
 */
export { createSqliteDashboardStore } from './dashboard-store.js';
export { type DashboardMigrateResult, migrateSqliteDashboard } from './migrations.js';
