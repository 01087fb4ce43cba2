import Database from 'better-sqlite3';
import { migrate } from './migrations.js';
import type { ResolvedSqliteStoreOptions } from './options.js';

/** Opens the database with the store's pragmas and brings its schema up to date. */
export function openDatabase(options: ResolvedSqliteStoreOptions): Database.Database {
  const db = new Database(options.path);
  try {
    // The busy timeout comes first: switching to WAL itself may wait for another process.
    db.pragma(`busy_timeout = ${options.busyTimeoutMs}`);
    // WAL lets readers (the server) proceed while a writer (the CLI) commits; an in-memory
    // database has no file and stays in its own `memory` mode.
    db.pragma('journal_mode = WAL');
    // FULL syncs the WAL in every commit, so an acknowledged send survives a power loss; NORMAL
    // survives a crash of the process only (see the `synchronous` option).
    db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    db.pragma('foreign_keys = ON');
    // A negative cache_size is in KiB rather than pages.
    db.pragma(`cache_size = -${options.cacheSizeKb}`);
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
