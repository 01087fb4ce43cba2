/** `@tidings/store-sqlite`: the embedded default store of Tidings, on better-sqlite3. */
export { migrateSqliteFile } from './migrate-file.js';
export type { SqliteStoreOptions } from './options.js';
export { createSqliteStore } from './sqlite-store.js';
