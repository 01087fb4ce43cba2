import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { migrate } from './migrations.js';
import type { ResolvedSqliteStoreOptions } from './options.js';

/** Opens the database with the store's pragmas and brings its schema up to date. */
export function openDatabase(options: ResolvedSqliteStoreOptions): Database.Database {
  if (Number.parseInt(process.versions.napi ?? '0', 10) < 10) assertDriverRuns(driverVersion(), process.versions);
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

/** The installed better-sqlite3's version, read from its package.json (ESM, or bundled as CommonJS). */
function driverVersion(): string {
  const require = createRequire(import.meta.url ?? __filename);
  return (require('better-sqlite3/package.json') as { version: string }).version;
}

/**
 * better-sqlite3 13 is built for Node-API 10 (Node.js 22 and later): on Node.js 20 (Node-API 9)
 * opening a database crashes the process without a message. Say why instead, and what to do.
 */
export function assertDriverRuns(version: string, versions: { node: string; napi?: string }): void {
  const major = Number.parseInt(version, 10);
  const napi = Number.parseInt(versions.napi ?? '0', 10);
  if (major >= 13 && napi < 10) {
    throw new Error(
      `better-sqlite3 ${version} needs Node.js 22 or later (Node-API 10); this is Node.js ${versions.node} ` +
        `(Node-API ${versions.napi ?? 'unknown'}). Run Node.js 22 or 24, or on Node.js 20 install ` +
        'better-sqlite3 12 beside Tidings: npm install better-sqlite3@12',
    );
  }
}
