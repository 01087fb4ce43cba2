/** `@tidings/store-postgres`: the store of Tidings on PostgreSQL (node-postgres), for many instances. */
export type { MigrateResult } from './migrations.js';
export type { PostgresPool, PostgresPoolClient, PostgresStoreOptions } from './options.js';
export {
  createPostgresStore,
  migratePostgres,
  type PostgresDatabase,
  type PostgresStore,
  type PostgresStoreCapabilities,
} from './postgres-store.js';
