import { resolve } from 'node:path';
import type { RequestLogStore } from '@tidings/core/store';
import Database from 'better-sqlite3';
import {
  REQUEST_LOG_COLUMNS,
  REQUEST_LOG_SCHEMA,
  REQUEST_LOG_WRITES,
  type RequestLogWriter,
  requestLogOperations,
  requestLogWritesOn,
} from './request-log.js';
import { applySchemaSteps } from './schema-steps.js';
import { type SqliteThread, startSqliteThread } from './sqlite-thread.js';

/**
 * The request log of a database file lives in a file of its own beside it, `<file>-requests`
 * (docs/api.md#request-log): its entries, with their bodies, are most of what the API writes,
 * and in the database file they went through the sends' WAL (copied again by every checkpoint)
 * and took the sends' write lock on the event loop. A thread of its own writes that file, so
 * logging a request costs the event loop only the hand-over of its entry.
 */
export function requestLogPath(databasePath: string): string {
  return `${resolve(databasePath)}-requests`;
}

/** The log file's schema, one step per version, as the database's (migrations.ts). */
const REQUEST_LOG_FILE_STEPS = [REQUEST_LOG_SCHEMA];

/** Opens the log file at `path`, created if missing, in WAL mode, its schema up to date. */
function openRequestLogFile(path: string, busyTimeoutMs: number): Database.Database {
  const db = new Database(path);
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // WAL: the main thread reads the file while the log's thread writes it.
    db.pragma('journal_mode = WAL');
    applySchemaSteps(db, REQUEST_LOG_FILE_STEPS, "The request log's file");
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Copies the entries of a database's request log (schema 21) into the log's own file, in the
 * order they were written, before migration 22 drops them. It can run twice (two processes
 * opening the file at once, or a crash before the drop): an entry copied already is ignored.
 */
export function moveRequestLogOut(db: Database.Database): void {
  // An in-memory database is new: it has no entries, and no file to put them beside.
  if (db.memory || db.prepare('SELECT 1 FROM request_log LIMIT 1').get() === undefined) return;
  const path = requestLogPath(db.name);
  openRequestLogFile(path, db.pragma('busy_timeout', { simple: true }) as number).close();
  // ATTACH cannot run inside a transaction: it comes first, and the copy is one transaction.
  db.prepare('ATTACH DATABASE ? AS request_log_file').run(path);
  try {
    db.transaction(() => {
      db.exec(`
        INSERT OR IGNORE INTO request_log_file.request_log (${REQUEST_LOG_COLUMNS})
        SELECT ${REQUEST_LOG_COLUMNS} FROM main.request_log ORDER BY seq;
        INSERT OR IGNORE INTO request_log_file.request_log_notifications (request_id, notification_id, project_id)
        SELECT request_id, notification_id, project_id FROM main.request_log_notifications;
      `);
    }).immediate();
  } finally {
    db.exec('DETACH DATABASE request_log_file');
  }
}

/**
 * The log thread's code: the statements of REQUEST_LOG_WRITES in the same three transactions as
 * `requestLogWritesOn`, one message each, answered with its result or its error (sqlite-thread.ts).
 * NORMAL: a commit here is not flushed to disk, the log being a diagnostic record that a crash
 * may cut short (its writer already holds entries in memory for up to a flush interval).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const { writes } = workerData;
const db = new Database(workerData.path);
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
db.pragma('synchronous = NORMAL');
db.pragma('cache_size = -' + workerData.cacheSizeKb);
const insertEntry = db.prepare(writes.insertEntry);
const insertNotification = db.prepare(writes.insertNotification);
const selectPurgeEnd = db.prepare(writes.selectPurgeEnd);
const deleteNotificationsUpTo = db.prepare(writes.deleteNotificationsUpTo);
const deleteEntriesUpTo = db.prepare(writes.deleteEntriesUpTo);
const forgetProject = writes.forgetProject.map((sql) => db.prepare(sql));
const operations = {
  append: db.transaction((rows) => {
    for (const [values, more] of rows) {
      if (insertEntry.run(values).changes === 0) continue;
      for (const id of more) insertNotification.run(values[0], id, values[1]);
    }
  }),
  purge: db.transaction((before, limit) => {
    const { last, count } = selectPurgeEnd.get(limit, before);
    if (last !== null) {
      deleteNotificationsUpTo.run(last);
      deleteEntriesUpTo.run(last);
    }
    return count;
  }),
  forgetProjects: db.transaction((projectIds) => {
    for (const projectId of projectIds) for (const statement of forgetProject) statement.run(projectId);
  }),
};
parentPort.on('message', (message) => {
  if (message === 'close') {
    // The last connection to the file: closing it copies the WAL into the file, here.
    db.close();
    parentPort.close();
    return;
  }
  const { id, operation, args } = message;
  try {
    parentPort.postMessage({ id, result: operations[operation].immediate(...args) });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
`;

type Operation = 'append' | 'purge' | 'forgetProjects';

/**
 * The writer of the log file at `path` (made by `openRequestLogFile`): a thread started at the
 * first write, so that a process that never writes the log (an admin command) starts none.
 */
function requestLogThread(path: string, busyTimeoutMs: number, cacheSizeKb: number): RequestLogWriter {
  type Call = { resolve(result: unknown): void; reject(error: Error): void };
  const pending = new Map<number, Call>();
  let thread: SqliteThread | null = null;
  let nextId = 0;
  let stopped: Error | null = null;
  let closing: Promise<void> | null = null;

  function settle(id: number): Call | undefined {
    const call = pending.get(id);
    pending.delete(id);
    if (pending.size === 0 && closing === null) thread?.worker.unref();
    return call;
  }
  function stop(error: Error): void {
    stopped ??= error;
    for (const id of [...pending.keys()]) settle(id)?.reject(stopped);
  }
  function start(): SqliteThread {
    const started = startSqliteThread(WORKER_SOURCE, { path, busyTimeoutMs, cacheSizeKb, writes: REQUEST_LOG_WRITES });
    // Idle, the thread keeps no process alive; with a write under way it does, so that a
    // caller awaiting that write (a script's last flush) sees it finish.
    started.worker.on('message', (message: { id: number; result?: unknown; error?: string }) => {
      const call = settle(message.id);
      if (message.error === undefined) call?.resolve(message.result);
      else call?.reject(new Error(message.error));
    });
    // A thread that failed (its file could not be opened) fails each write, which the writer
    // counts as dropped and logs; the server goes on.
    started.worker.on('error', stop);
    void started.exited.then(() => stop(new Error('the request log thread has stopped')));
    return started;
  }

  function call<Result>(operation: Operation, args: unknown[]): Promise<Result> {
    if (stopped !== null) return Promise.reject(stopped);
    if (closing !== null) return Promise.reject(new Error('the request log is closed'));
    thread ??= start();
    const { worker } = thread;
    return new Promise<Result>((resolve, reject) => {
      if (pending.size === 0) worker.ref();
      const id = nextId++;
      pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
      worker.postMessage({ id, operation, args });
    });
  }

  return {
    async append(rows) {
      if (rows.length > 0) await call('append', [rows]);
    },
    purge(before, limit) {
      return call<number>('purge', [before, limit]);
    },
    async forgetProjects(projectIds) {
      if (projectIds.length > 0) await call('forgetProjects', [projectIds]);
    },
    close() {
      // The writes sent before are done first; a thread never started or stopped has nothing to close.
      closing ??= thread === null || stopped !== null ? Promise.resolve() : thread.close();
      return closing;
    },
  };
}

/** A store's request log: the port, the deletion of deleted projects' entries, and its close. */
export interface OpenRequestLog {
  operations: RequestLogStore;
  forgetProjects(projectIds: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The request log of the store on `db`: in a file of its own beside a database file, read on
 * this thread and written by a thread of its own; in the database itself when it is in memory.
 */
export function openRequestLog(
  db: Database.Database,
  { busyTimeoutMs, cacheSizeKb }: { busyTimeoutMs: number; cacheSizeKb: number },
): OpenRequestLog {
  if (db.memory) {
    db.exec(REQUEST_LOG_SCHEMA);
    const writer = requestLogWritesOn(db);
    return { operations: requestLogOperations(db, writer), forgetProjects: writer.forgetProjects, close: writer.close };
  }
  const path = requestLogPath(db.name);
  const reader = openRequestLogFile(path, busyTimeoutMs);
  // The thread's page cache is as large as the store's: with SQLite's default (2 MiB) an entry
  // cost its thread about 15% more.
  const writer = requestLogThread(path, busyTimeoutMs, cacheSizeKb);
  return {
    operations: requestLogOperations(reader, writer),
    forgetProjects: writer.forgetProjects,
    async close() {
      // The reader first, so that the thread's connection is the last and copies the WAL back.
      reader.close();
      await writer.close();
    },
  };
}
