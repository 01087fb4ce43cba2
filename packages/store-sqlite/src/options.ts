/** Options of {@link createSqliteStore}. */
export interface SqliteStoreOptions {
  /** The database file, created if missing; `':memory:'` for a private in-memory database. */
  path: string;
  /**
   * How long a write waits for another connection's write lock (the operator CLI and the server
   * share one file) before it fails with SQLITE_BUSY, in milliseconds. @default 5000
   */
  busyTimeoutMs?: number;
}

/** {@link SqliteStoreOptions} with every default applied. */
export type ResolvedSqliteStoreOptions = Required<SqliteStoreOptions>;

/** Applies the defaults and refuses a bad configuration at construction. */
export function resolveSqliteStoreOptions(options: SqliteStoreOptions): ResolvedSqliteStoreOptions {
  const { path, busyTimeoutMs = 5000 } = options;
  if (typeof path !== 'string' || path.length === 0) {
    throw new TypeError("createSqliteStore: `path` must be a file path or ':memory:'");
  }
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new TypeError('createSqliteStore: `busyTimeoutMs` must be a whole number of milliseconds, 0 or more');
  }
  return { path, busyTimeoutMs };
}
