/** Options of {@link createSqliteStore}. */
export interface SqliteStoreOptions {
  /** The database file, created if missing; `':memory:'` for a private in-memory database. */
  path: string;
  /**
   * How long a write waits for another connection's write lock (the operator CLI and the server
   * share one file) before it fails with SQLITE_BUSY, in milliseconds. @default 5000
   */
  busyTimeoutMs?: number;
  /**
   * How many notifications this process keeps as last read, so that reading one that
   * has not changed since (a poll) costs one `PRAGMA data_version` instead of a query. Reads
   * stay exact: this store's own writes drop what they change, and any commit of another
   * connection drops everything. 0 keeps none. @default 4096
   */
  notificationCacheSize?: number;
  /**
   * Checkpoint the WAL from a background thread with its own connection, every this many
   * milliseconds, instead of inside the commit that crosses SQLite's threshold (which then
   * stalls the event loop for milliseconds). The committing connection's own threshold rises to
   * 4000 pages as a backstop. 0 leaves checkpoints to SQLite's default (every 1000 pages, in the
   * commit). Ignored for `:memory:`. @default 200
   */
  checkpointIntervalMs?: number;
  /**
   * When a commit counts as done. `'full'` syncs the write-ahead log to the disk in every commit
   * (one fsync per group of sends), so a send acknowledged with 201 survives a power loss or an
   * operating-system crash. `'normal'` skips that sync: an acknowledged send still survives the
   * process crashing, but the last commits before a power loss may be lost (never corrupted).
   * See bench/README.md for what each costs. @default 'full'
   */
  synchronous?: 'full' | 'normal';
  /**
   * The most memory SQLite's page cache of this connection may hold, in KiB (it grows only as
   * pages are read). Each send inserts an attempt per browser into an index ordered by browser,
   * at places spread over the whole index: with SQLite's own default (2 MiB), most of those
   * pages have left the cache by the next send to the browser and are read again from the
   * operating system. The request log's thread, writing a file of its own, has a cache as large.
   * @default 32768
   */
  cacheSizeKb?: number;
}

/** {@link SqliteStoreOptions} with every default applied. */
export type ResolvedSqliteStoreOptions = Required<SqliteStoreOptions>;

/** Applies the defaults and refuses a bad configuration at construction. */
export function resolveSqliteStoreOptions(options: SqliteStoreOptions): ResolvedSqliteStoreOptions {
  const {
    path,
    busyTimeoutMs = 5000,
    notificationCacheSize = 4096,
    checkpointIntervalMs = 200,
    synchronous = 'full',
    cacheSizeKb = 32_768,
  } = options;
  if (typeof path !== 'string' || path.length === 0) {
    throw new TypeError("createSqliteStore: `path` must be a file path or ':memory:'");
  }
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new TypeError('createSqliteStore: `busyTimeoutMs` must be a whole number of milliseconds, 0 or more');
  }
  if (!Number.isInteger(notificationCacheSize) || notificationCacheSize < 0) {
    throw new TypeError('createSqliteStore: `notificationCacheSize` must be a whole number, 0 or more');
  }
  if (!Number.isInteger(checkpointIntervalMs) || checkpointIntervalMs < 0) {
    throw new TypeError('createSqliteStore: `checkpointIntervalMs` must be a whole number of milliseconds, 0 or more');
  }
  if (synchronous !== 'full' && synchronous !== 'normal') {
    throw new TypeError("createSqliteStore: `synchronous` must be 'full' or 'normal'");
  }
  if (!Number.isInteger(cacheSizeKb) || cacheSizeKb < 0) {
    throw new TypeError('createSqliteStore: `cacheSizeKb` must be a whole number of KiB, 0 or more');
  }
  return { path, busyTimeoutMs, notificationCacheSize, checkpointIntervalMs, synchronous, cacheSizeKb };
}
