import type { AttemptRecord, NotificationRecord, UsageBreakdownDay, UsageDay } from '@tidings/core';
import {
  acceptedAttempt,
  type CreateNotificationInput,
  type CreateNotificationResult,
  idTimeFloor,
  type NotificationStore,
  type UsageStore,
  utcDay,
} from '@tidings/core/store';
import type Database from 'better-sqlite3';
import { createGroupCommit, type GroupCommit } from './group-commit.js';
import type { GroupRead } from './group-read.js';
import { IDEMPOTENCY_COLUMNS, type IdempotencyRow, idempotencyOutcome } from './idempotency.js';
import type { InsertJobs } from './jobs.js';
import type { NotificationCache } from './notification-cache.js';
import { NOTIFICATION_WITH_ATTEMPTS_COLUMNS, notificationFromRawRows, type RawNotificationRow } from './rows.js';

type NotificationOperations = NotificationStore & UsageStore;

/**
 * What the sends of one group commit share: each would otherwise read the recipient's browsers,
 * step each browser's sequence and count usage with statements of its own.
 */
export interface SendGroup {
  /**
   * Connected browsers by project and recipient, with the last sequence number each had when
   * read: read once a group, in one query, since sends do not change them (the group's own steps
   * are in `lastSeq`).
   */
  browsers: Map<string, ConnectedBrowsers>;
  /** The last sequence number of each browser the group sent to, written at the end of the group. */
  lastSeq: Map<string, number>;
  /** Live usage of the group by project and UTC day, added at the end of the group. */
  usage: Map<string, { projectId: string; day: string; notifications: number; attempts: number }>;
}

/** A recipient's connected browsers, and each one's last sequence number, in the same order. */
export interface ConnectedBrowsers {
  ids: string[];
  lastSeqs: number[];
}

/** The group commit of sends: its state, and what it writes at the end of each group. */

/** The insert of a notification's row, with {@link notificationValues}; a send and an in-transaction send share it. */
export const INSERT_NOTIFICATION = `INSERT INTO notifications
   (id, project_id, mode, recipient, title, body, url, icon, tag, data, ttl, created_at, expires_at,
    api_key_id, request_id, idempotency_key)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The insert of an attempt's row: id, notification, browser, seq, final, accepted and expiry times. */
export const INSERT_ATTEMPT = `INSERT INTO attempts (id, notification_id, browser_id, seq, status, final, accepted_at, expires_at)
 VALUES (?, ?, ?, ?, 'accepted', ?, ?, ?)`;

/** The parameters of {@link INSERT_NOTIFICATION}, in its columns' order. */
export type NotificationValues = [
  string,
  string,
  string,
  string,
  string,
  string | null,
  string | null,
  string | null,
  string | null,
  string | null,
  number,
  number,
  number,
  string | null,
  string | null,
  string | null,
];

/** The parameters of {@link INSERT_NOTIFICATION} for a notification. */
export function notificationValues(notification: NotificationRecord): NotificationValues {
  return [
    notification.id,
    notification.projectId,
    notification.mode,
    notification.recipient,
    notification.title,
    notification.body,
    notification.url,
    notification.icon,
    notification.tag,
    notification.data === null ? null : JSON.stringify(notification.data),
    notification.ttl,
    notification.createdAt,
    notification.expiresAt,
    notification.apiKeyId,
    notification.requestId,
    notification.idempotencyKey,
  ];
}

export function createSendGroupCommit(
  db: Database.Database,
  afterCommit?: () => Promise<void>,
): GroupCommit<SendGroup> {
  const writeLastSeq = db.prepare<[number, string]>('UPDATE browsers SET last_seq = ? WHERE id = ?');
  const countUsage = db.prepare<[string, string, number, number]>(
    `INSERT INTO usage_days (project_id, day, notifications, attempts) VALUES (?, ?, ?, ?)
     ON CONFLICT (project_id, day) DO UPDATE SET
       notifications = notifications + excluded.notifications,
       attempts = attempts + excluded.attempts`,
  );
  return createGroupCommit<SendGroup>(db, {
    afterCommit,
    begin: () => ({ browsers: new Map(), lastSeq: new Map(), usage: new Map() }),
    end(group) {
      for (const [browserId, seq] of group.lastSeq) writeLastSeq.run(seq, browserId);
      for (const day of group.usage.values()) countUsage.run(day.projectId, day.day, day.notifications, day.attempts);
    },
  });
}

/** Notifications, their attempts, and the usage they count. */
export function notificationOperations(
  db: Database.Database,
  groupCommit: GroupCommit<SendGroup>,
  groupRead: GroupRead,
  cache: NotificationCache,
  insertJobs: InsertJobs,
): NotificationOperations {
  const connectedBrowsers = db
    .prepare<[string, string], [string, number]>(
      `SELECT id, last_seq FROM browsers
        WHERE project_id = ? AND recipient = ? AND connected = 1
        ORDER BY created_at, id`,
    )
    .raw();
  const readConnected = (projectId: string, recipient: string): ConnectedBrowsers => {
    const rows = connectedBrowsers.all(projectId, recipient);
    return { ids: rows.map((row) => row[0]), lastSeqs: rows.map((row) => row[1]) };
  };
  const insertNotification = db.prepare<NotificationValues>(INSERT_NOTIFICATION);
  // The version the insert's trigger gave the recipient's inbox: the one its item was made at.
  const selectInboxVersion = db
    .prepare<[string, string], number>('SELECT version FROM inbox_counts WHERE project_id = ? AND recipient = ?')
    .pluck();
  const insertAttempt = db.prepare<[string, string, string, number, number, number, number]>(INSERT_ATTEMPT);
  const selectIdempotency = db.prepare<[string, string], IdempotencyRow>(
    `SELECT ${IDEMPOTENCY_COLUMNS} FROM idempotency_keys WHERE project_id = ? AND key = ?`,
  );
  // An expired record under the key is replaced: the key is free again after its retention.
  const recordIdempotency = db.prepare<[string, string, string, number, string, number, number]>(
    `INSERT OR REPLACE INTO idempotency_keys
       (project_id, key, fingerprint, response_status, response_body, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  // One statement, so the notification and its attempts come from one snapshot without a
  // transaction around two. rowid is insertion order: attempts read back in the order
  // createNotification returned them.
  const selectNotification = db
    .prepare<[string, string], RawNotificationRow>(
      `SELECT ${NOTIFICATION_WITH_ATTEMPTS_COLUMNS}
         FROM notifications AS n LEFT JOIN attempts AS a ON a.notification_id = n.id
        WHERE n.id = ? AND n.project_id = ?
        ORDER BY a.rowid`,
    )
    .raw();
  const selectUsage = db.prepare<[string, string, string], UsageDay>(
    `SELECT day, notifications, attempts FROM usage_days
      WHERE project_id = ? AND day BETWEEN ? AND ? ORDER BY day`,
  );
  // The ids' range (ids sort by creation time) lets the index on (project_id, id) serve the read.
  const selectUsageBreakdown = db.prepare<[string, string, string, number, number], UsageBreakdownDay>(
    `SELECT strftime('%Y-%m-%d', n.created_at / 1000, 'unixepoch') AS day, n.mode AS mode,
            count(DISTINCT n.id) AS notifications, count(a.id) AS attempts,
            count(a.sent_at) AS sent, count(a.delivered_at) AS delivered
       FROM notifications AS n LEFT JOIN attempts AS a ON a.notification_id = n.id
      WHERE n.project_id = ? AND n.id >= ? AND n.id < ? AND n.created_at >= ? AND n.created_at < ?
      GROUP BY day, n.mode ORDER BY day, n.mode`,
  );

  // Runs inside a group commit, possibly twice (see GroupCommit): it changes the group's shared
  // state only after its last statement.
  const create = (input: CreateNotificationInput, group: SendGroup): CreateNotificationResult => {
    const { notification, idempotency } = input;
    // Checked inside the write transaction: a send with the same key from another process or
    // connection committed before this one began is seen here, so exactly one of them creates.
    if (idempotency !== null) {
      const stored = selectIdempotency.get(notification.projectId, idempotency.key);
      const outcome = idempotencyOutcome(stored, idempotency.fingerprint, notification.createdAt);
      if (outcome.kind === 'mismatch') return outcome;
      if (outcome.kind === 'replay') {
        return { kind: 'replay', response: { status: outcome.status, body: outcome.body } };
      }
    }
    const recipientKey = `${notification.projectId}\n${notification.recipient}`;
    let connected = group.browsers.get(recipientKey);
    if (connected === undefined) {
      connected = readConnected(notification.projectId, notification.recipient);
      group.browsers.set(recipientKey, connected);
    }
    const { ids: browserIds, lastSeqs } = connected;
    if (browserIds.length === 0) return { kind: 'no-connected-browser' };

    insertNotification.run(...notificationValues(notification));
    const attempts = browserIds.map((browserId, i): AttemptRecord => {
      const seq = (group.lastSeq.get(browserId) ?? lastSeqs[i]!) + 1;
      const attempt = acceptedAttempt(notification, input.newAttemptId(), browserId, seq);
      insertAttempt.run(
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

    const inboxVersion =
      notification.mode === 'live'
        ? (selectInboxVersion.get(notification.projectId, notification.recipient) ?? null)
        : null;
    const created = { notification, attempts };
    const response = input.render(created);
    if (idempotency !== null) {
      recordIdempotency.run(
        notification.projectId,
        idempotency.key,
        idempotency.fingerprint,
        response.status,
        response.body,
        notification.createdAt,
        idempotency.expiresAt,
      );
    }
    // The send's jobs, in its transaction: they commit, and reach the disk, with it.
    if (input.jobs) insertJobs(input.jobs(created), notification.createdAt);
    // Every statement succeeded: now the send counts in the group's state.
    for (const attempt of attempts) group.lastSeq.set(attempt.browserId, attempt.seq);
    if (notification.mode === 'live') {
      const day = utcDay(notification.createdAt);
      const usageKey = `${notification.projectId}\n${day}`;
      const counted = group.usage.get(usageKey);
      if (counted) {
        counted.notifications += 1;
        counted.attempts += attempts.length;
      } else {
        group.usage.set(usageKey, {
          projectId: notification.projectId,
          day,
          notifications: 1,
          attempts: attempts.length,
        });
      }
    }
    return { kind: 'created', created, response, inboxVersion };
  };

  return {
    // What a send created is not kept: the record of its sending usually changes it within
    // milliseconds, and thousands of fresh records kept alive would only give the collector more
    // to copy. A read keeps what it reads.
    async createNotification(input) {
      return groupCommit.run((group) => create(input, group));
    },
    getNotification({ projectId, id }) {
      return groupRead.run(() => {
        const kept = cache.get(id);
        if (kept) return kept.notification.projectId === projectId ? kept : null;
        const found = notificationFromRawRows(selectNotification.all(id, projectId));
        if (found) cache.keep(found);
        return found;
      });
    },
    async getUsage({ projectId, fromDay, toDay }) {
      return selectUsage.all(projectId, fromDay, toDay);
    },
    async getUsageBreakdown({ projectId, from, to }) {
      return selectUsageBreakdown.all(projectId, idTimeFloor('ntf', from), idTimeFloor('ntf', to), from, to);
    },
  };
}
