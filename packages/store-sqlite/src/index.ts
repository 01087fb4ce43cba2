/** `@tidings/store-sqlite`: the embedded default store of Tidings, on better-sqlite3. */
export { migrateSqliteFile } from './migrate-file.js';
export type { SqliteStoreOptions } from './options.js';
export {
  createSqliteStore,
  type SqliteDatabase,
  type SqliteStore,
  type SqliteStoreCapabilities,
} from './sqlite-store.js';
