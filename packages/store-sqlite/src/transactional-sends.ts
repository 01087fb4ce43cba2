import { resolve } from 'node:path';
import type { AttemptRecord, SqliteTransaction } from '@tidings/core';
import {
  acceptedAttempt,
  type CreateNotificationResult,
  type JobWakeups,
  type SqliteTransactionalSends,
  utcDay,
} from '@tidings/core/store';
import type Database from 'better-sqlite3';
import { IDEMPOTENCY_COLUMNS, type IdempotencyRow, idempotencyOutcome } from './idempotency.js';
import { type InsertJobs, jobInserter } from './jobs.js';
import { INSERT_ATTEMPT, INSERT_NOTIFICATION, type NotificationValues, notificationValues } from './notifications.js';

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

/** The statements of a send, prepared once on each application's connection. */
interface SendStatements {
  connected: { all(projectId: string, recipient: string): [string, number][] };
  idempotency: { get(projectId: string, key: string): IdempotencyRow | undefined };
  raiseSeq: { run(seq: number, browserId: string): unknown };
  notification: { run(...values: unknown[]): unknown };
  attempt: { run(...values: unknown[]): unknown };
  storeResult: { run(...values: unknown[]): unknown };
  usage: { run(...values: unknown[]): unknown };
  insertJobs: InsertJobs;
}

function prepareSend(db: SqliteTransaction): SendStatements {
  const raw = db as unknown as Database.Database;
  return {
    connected: raw
      .prepare<[string, string], [string, number]>(
        `SELECT id, last_seq FROM browsers
          WHERE project_id = ? AND recipient = ? AND connected = 1
          ORDER BY created_at, id`,
      )
      .raw(),
    idempotency: raw.prepare<[string, string], IdempotencyRow>(
      `SELECT ${IDEMPOTENCY_COLUMNS} FROM idempotency_keys WHERE project_id = ? AND key = ?`,
    ),
    raiseSeq: raw.prepare('UPDATE browsers SET last_seq = ? WHERE id = ?'),
    notification: raw.prepare<NotificationValues>(INSERT_NOTIFICATION),
    attempt: raw.prepare(INSERT_ATTEMPT),
    storeResult: raw.prepare(
      `INSERT OR REPLACE INTO idempotency_keys
         (project_id, key, fingerprint, response_status, response_body, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    usage: raw.prepare(
      `INSERT INTO usage_days (project_id, day, notifications, attempts) VALUES (?, ?, 1, ?)
       ON CONFLICT (project_id, day) DO UPDATE SET
         notifications = notifications + 1,
         attempts = attempts + excluded.attempts`,
    ),
    insertJobs: jobInserter(raw),
  };
}

/** How often the end of a transaction begun by hand (`BEGIN`, not `db.transaction`) is looked for. */
const END_CHECK_MS = 5;

/**
 * Sends through an application's better-sqlite3 transaction on the store's file: the statements
 * of the store's own send (notifications.ts), run synchronously on the application's `Database`,
 * which holds the write lock. Whether the send committed is read once the transaction has ended,
 * on the store's own connection; a committed send is flushed to disk before it is delivered.
 */
export function transactionalSends(deps: TransactionalSendDeps): SqliteTransactionalSends {
  const statements = new WeakMap<SqliteTransaction, SendStatements>();
  const exists = deps.db.prepare<[string], number>('SELECT 1 FROM notifications WHERE id = ?').pluck();
  /** The kinds of the jobs each send enqueued, until its commit is known. */
  const jobKinds = new Map<string, string[]>();

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
        prepared = prepareSend(db);
        statements.set(db, prepared);
      }
      const { notification, idempotency } = input;
      if (idempotency !== null) {
        const stored = prepared.idempotency.get(notification.projectId, idempotency.key);
        const outcome = idempotencyOutcome(stored, idempotency.fingerprint, notification.createdAt);
        if (outcome.kind === 'mismatch') return outcome;
        if (outcome.kind === 'replay')
          return { kind: 'replay', response: { status: outcome.status, body: outcome.body } };
      }
      const browsers = prepared.connected.all(notification.projectId, notification.recipient);
      if (browsers.length === 0) return { kind: 'no-connected-browser' };
      prepared.notification.run(...notificationValues(notification));
      const attempts = browsers.map(([browserId, lastSeq]): AttemptRecord => {
        const attempt = acceptedAttempt(notification, input.newAttemptId(), browserId, lastSeq + 1);
        prepared.raiseSeq.run(attempt.seq, browserId);
        prepared.attempt.run(
          attempt.id,
          notification.id,
          browserId,
          attempt.seq,
          attempt.final ? 1 : 0,
          attempt.acceptedAt,
          notification.expiresAt,
        );
        return attempt;
      });
      const created = { notification, attempts };
      const response = input.render(created);
      if (idempotency !== null) {
        prepared.storeResult.run(
          notification.projectId,
          idempotency.key,
          idempotency.fingerprint,
          response.status,
          response.body,
          notification.createdAt,
          idempotency.expiresAt,
        );
      }
      const jobs = input.jobs ? input.jobs(created) : [];
      if (jobs.length > 0) {
        prepared.insertJobs(jobs, notification.createdAt);
        jobKinds.set(notification.id, [...new Set(jobs.map((job) => job.kind))]);
      }
      if (notification.mode === 'live') {
        prepared.usage.run(notification.projectId, utcDay(notification.createdAt), attempts.length);
      }
      return { kind: 'created', created, response };
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
