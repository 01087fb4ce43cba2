import { resolve } from 'node:path';
import type { NotificationWithAttempts, SqliteTransaction } from '@tidings/core';
import type { CreateNotificationResult, JobWakeups, NewJob, SqliteTransactionalSends } from '@tidings/core/store';
import type Database from 'better-sqlite3';
import { immediateLedger, prepareSendStatements, type SendStatements, writeSend } from './send-statements.js';

/** What a send through an application's transaction needs from the store. */
export interface TransactionalSendDeps {
  /** The store's own connection, which reads whether a send committed. */
  db: Database.Database;
  /** The store's file, resolved; an application's `Database` on another is refused. */
  path: string;
  /** Resolves once what was committed before the call is on disk (the store's WAL flush). */
  sync: () => Promise<void>;
  wakeups: JobWakeups;
}

/** How often the end of a transaction begun by hand (`BEGIN`, not `db.transaction`) is looked for. */
const END_CHECK_MS = 5;

/**
 * Sends through an application's better-sqlite3 transaction on the store's file: the store's own
 * send (send-statements.ts), run synchronously on the application's `Database`,
 * which holds the write lock. Whether the send committed is read once the transaction has ended,
 * on the store's own connection; a committed send is flushed to disk before it is delivered.
 */
export function transactionalSends(deps: TransactionalSendDeps): SqliteTransactionalSends {
  const statements = new WeakMap<SqliteTransaction, SendStatements>();
  const exists = deps.db.prepare<[string], number>('SELECT 1 FROM notifications WHERE id = ?').pluck();
  /** The kinds of the jobs each send enqueued, until its commit is known. */
  const jobKinds = new Map<string, string[]>();
  const rememberJobs = (created: NotificationWithAttempts, jobs: readonly NewJob[]) => {
    if (jobs.length > 0) jobKinds.set(created.notification.id, [...new Set(jobs.map((job) => job.kind))]);
  };

  return {
    dialect: 'sqlite',
    createNotification(db, input): CreateNotificationResult {
      let prepared = statements.get(db);
      if (!prepared) {
        const name = (db as { name?: unknown }).name;
        if (typeof name !== 'string' || deps.db.memory || resolve(name) !== deps.path) {
          throw new TypeError(
            `The transaction's Database must be opened on the store's file (${deps.path}), not ${String(name)}`,
          );
        }
        prepared = prepareSendStatements(db as unknown as Database.Database);
        statements.set(db, prepared);
      }
      return writeSend(prepared, input, immediateLedger(prepared, rememberJobs));
    },

    async committed(db, notificationId) {
      // A better-sqlite3 transaction is synchronous: `db.transaction(fn)` has ended once the code
      // that called `sendSync` has returned, before any promise callback runs. One begun by hand
      // (`BEGIN` … `COMMIT`) may stay open across awaits: its end is looked for every few ms.
      await Promise.resolve();
      while (db.inTransaction) await new Promise<void>((resolve) => setTimeout(resolve, END_CHECK_MS));
      const kinds = jobKinds.get(notificationId) ?? [];
      jobKinds.delete(notificationId);
      if (exists.get(notificationId) === undefined) return false;
      await deps.sync();
      deps.wakeups.notify(kinds);
      return true;
    },
  };
}
