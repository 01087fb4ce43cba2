/** `@tidings/store-postgres`: the store of Tidings on PostgreSQL (node-postgres), for many instances. */
export { type MigrateResult, migrate, migrations } from './migrations.js';
export type { PostgresStoreOptions } from './options.js';
export { createPostgresStore } from './postgres-store.js';
