import type { AttemptRecord, NotificationRecord, NotificationWithAttempts } from '@tidings/core';
import {
  acceptedAttempt,
  type CreateNotificationInput,
  type CreateNotificationResult,
  type NewJob,
  type NotificationColumnValues,
  notificationColumnValues,
  utcDay,
} from '@tidings/core/store';
import type Database from 'better-sqlite3';
import { IDEMPOTENCY_COLUMNS, type IdempotencyRow, idempotencyOutcome } from './idempotency.js';
import { type InsertJobs, jobInserter } from './jobs.js';

/**
 * The statements of a send, prepared on one connection: the store's own, whose group commit
 * records the sends of one turn of the event loop together, or an application's, whose
 * transaction a send joins. Both run {@link writeSend}: a send is written by this file alone.
 */
export interface SendStatements {
  /** A recipient's connected browsers, each with its last sequence number. */
  connected: { all(projectId: string, recipient: string): [string, number][] };
  idempotency: { get(projectId: string, key: string): IdempotencyRow | undefined };
  notification: { run(...values: NotificationValues): unknown };
  /** The version of a recipient's inbox (docs/inbox.md#versions). */
  inboxVersion: { get(projectId: string, recipient: string): number | undefined };
  attempt: { run(...values: [string, string, string, number, number, number, number]): unknown };
  storeResult: { run(...values: [string, string, string, number, string, number, number]): unknown };
  lastSeq: { run(seq: number, browserId: string): unknown };
  usage: { run(projectId: string, day: string, notifications: number, attempts: number): unknown };
  insertJobs: InsertJobs;
}

/** A recipient's connected browsers, and each one's last sequence number, in the same order. */
export interface ConnectedBrowsers {
  ids: string[];
  lastSeqs: number[];
}

/**
 * Where a send's reads of browsers and its counts go. The group commit reads a recipient's
 * browsers once a group and writes the browsers' sequences and the usage once at its end; a send
 * in an application's transaction reads and writes them at once ({@link immediateLedger}).
 */
export interface SendLedger {
  /** The recipient's connected browsers, with the last sequence number each has so far. */
  connected(projectId: string, recipient: string): ConnectedBrowsers;
  /** Counts a created send: its attempts' sequences, and for a live send its usage; `jobs` are those it enqueued. */
  count(created: NotificationWithAttempts, jobs: readonly NewJob[]): void;
}

/** The parameters of the notification's insert, in its columns' order. */
export type NotificationValues = [...NotificationColumnValues, string | null, string | null, string | null];

/** Prepares a send's statements on a connection to the store's file. */
export function prepareSendStatements(db: Database.Database): SendStatements {
  return {
    connected: db
      .prepare<[string, string], [string, number]>(
        `SELECT id, last_seq FROM browsers
          WHERE project_id = ? AND recipient = ? AND connected = 1
          ORDER BY created_at, id`,
      )
      .raw(),
    idempotency: db.prepare<[string, string], IdempotencyRow>(
      `SELECT ${IDEMPOTENCY_COLUMNS} FROM idempotency_keys WHERE project_id = ? AND key = ?`,
    ),
    notification: db.prepare<NotificationValues>(
      `INSERT INTO notifications
         (id, project_id, mode, recipient, title, body, url, icon, tag, data, ttl, created_at, expires_at,
          api_key_id, request_id, idempotency_key)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    // The version the insert's trigger gave the recipient's inbox: the one its item was made at.
    inboxVersion: db
      .prepare<[string, string], number>('SELECT version FROM inbox_counts WHERE project_id = ? AND recipient = ?')
      .pluck(),
    attempt: db.prepare<[string, string, string, number, number, number, number]>(
      `INSERT INTO attempts (id, notification_id, browser_id, seq, status, final, accepted_at, expires_at)
       VALUES (?, ?, ?, ?, 'accepted', ?, ?, ?)`,
    ),
    // An expired record under the key is replaced: the key is free again after its retention.
    storeResult: db.prepare<[string, string, string, number, string, number, number]>(
      `INSERT OR REPLACE INTO idempotency_keys
         (project_id, key, fingerprint, response_status, response_body, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    lastSeq: db.prepare<[number, string]>('UPDATE browsers SET last_seq = ? WHERE id = ?'),
    usage: db.prepare<[string, string, number, number]>(
      `INSERT INTO usage_days (project_id, day, notifications, attempts) VALUES (?, ?, ?, ?)
       ON CONFLICT (project_id, day) DO UPDATE SET
         notifications = notifications + excluded.notifications,
         attempts = attempts + excluded.attempts`,
    ),
    insertJobs: jobInserter(db),
  };
}

/** The parameters of the notification's insert for a notification. */
export function notificationValues(notification: NotificationRecord): NotificationValues {
  return [
    ...notificationColumnValues(notification),
    notification.apiKeyId,
    notification.requestId,
    notification.idempotencyKey,
  ];
}

/**
 * Writes a send inside a write transaction that the caller holds: the key's stored result (a
 * replay or a mismatch writes nothing), the notification, an attempt per connected browser, the
 * result under the key and the send's jobs, which therefore commit, and reach the disk, with it.
 * The ledger hears of the send only after its last statement, so a send that throws part-way
 * leaves the ledger as it was (a group commit may run a send twice).
 */
export function writeSend(
  statements: SendStatements,
  input: CreateNotificationInput,
  ledger: SendLedger,
): CreateNotificationResult {
  const { notification, idempotency } = input;
  // Checked inside the write transaction: a send with the same key from another process or
  // connection committed before this one began is seen here, so exactly one of them creates.
  if (idempotency !== null) {
    const stored = statements.idempotency.get(notification.projectId, idempotency.key);
    const outcome = idempotencyOutcome(stored, idempotency.fingerprint, notification.createdAt);
    if (outcome.kind === 'mismatch') return outcome;
    if (outcome.kind === 'replay') return { kind: 'replay', response: { status: outcome.status, body: outcome.body } };
  }
  const { ids, lastSeqs } = ledger.connected(notification.projectId, notification.recipient);
  // Kept for the inbox, a send to a recipient without a browser is recorded with no attempt.
  if (ids.length === 0 && input.keepForInbox !== true) return { kind: 'no-connected-browser' };

  statements.notification.run(...notificationValues(notification));
  const inboxVersion =
    notification.mode === 'live'
      ? (statements.inboxVersion.get(notification.projectId, notification.recipient) ?? null)
      : null;
  const attempts = ids.map((browserId, i): AttemptRecord => {
    const attempt = acceptedAttempt(notification, input.newAttemptId(), browserId, lastSeqs[i]! + 1);
    statements.attempt.run(
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
    statements.storeResult.run(
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
  if (jobs.length > 0) statements.insertJobs(jobs, notification.createdAt);
  ledger.count(created, jobs);
  return { kind: 'created', created, response, inboxVersion };
}

/**
 * A ledger that reads a recipient's browsers and writes a send's sequences and usage at once;
 * `onJobs` hears of the jobs a created send enqueued.
 */
export function immediateLedger(
  statements: SendStatements,
  onJobs: (created: NotificationWithAttempts, jobs: readonly NewJob[]) => void,
): SendLedger {
  return {
    connected(projectId, recipient) {
      const rows = statements.connected.all(projectId, recipient);
      return { ids: rows.map((row) => row[0]), lastSeqs: rows.map((row) => row[1]) };
    },
    count(created, jobs) {
      const { notification, attempts } = created;
      for (const attempt of attempts) statements.lastSeq.run(attempt.seq, attempt.browserId);
      if (notification.mode === 'live') {
        statements.usage.run(notification.projectId, utcDay(notification.createdAt), 1, attempts.length);
      }
      onJobs(created, jobs);
    },
  };
}
