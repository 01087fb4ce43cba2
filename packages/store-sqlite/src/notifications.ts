import {
  type AttemptRecord,
  type CreateNotificationInput,
  type CreateNotificationResult,
  type Store,
  type UsageDay,
  utcDay,
} from '@tidings/core';
import type Database from 'better-sqlite3';
import type { GroupCommit } from './group-commit.js';
import type { GroupRead } from './group-read.js';
import type { NotificationCache } from './notification-cache.js';
import {
  NOTIFICATION_WITH_ATTEMPTS_COLUMNS,
  type NotificationRow,
  notificationFromRawRows,
  type RawNotificationRow,
} from './rows.js';

type NotificationOperations = Pick<Store, 'createNotification' | 'getNotification' | 'getUsage'>;

/** Notifications, their attempts, and the usage they count. */
export function notificationOperations(
  db: Database.Database,
  groupCommit: GroupCommit,
  groupRead: GroupRead,
  cache: NotificationCache,
): NotificationOperations {
  const connectedBrowsers = db
    .prepare<[string, string], string>(
      `SELECT id FROM browsers
        WHERE project_id = ? AND recipient = ? AND connected = 1
        ORDER BY created_at, id`,
    )
    .pluck();
  const insertNotification = db.prepare<Omit<NotificationRow, 'data'> & { data: string | null }>(
    `INSERT INTO notifications
       (id, project_id, mode, recipient, title, body, url, icon, tag, data, ttl, created_at, expires_at)
     VALUES
       (@id, @project_id, @mode, @recipient, @title, @body, @url, @icon, @tag, @data, @ttl, @created_at, @expires_at)`,
  );
  const nextSeq = db
    .prepare<[string], number>('UPDATE browsers SET last_seq = last_seq + 1 WHERE id = ? RETURNING last_seq')
    .pluck();
  const insertAttempt = db.prepare<[string, string, string, number, number, number, number]>(
    `INSERT INTO attempts (id, notification_id, browser_id, seq, status, final, accepted_at, expires_at)
     VALUES (?, ?, ?, ?, 'accepted', ?, ?, ?)`,
  );
  const completeIdempotency = db.prepare<[number, string, string, string]>(
    `UPDATE idempotency_keys SET state = 'completed', response_status = ?, response_body = ?
      WHERE project_id = ? AND key = ?`,
  );
  const countUsage = db.prepare<[string, string, number]>(
    `INSERT INTO usage_days (project_id, day, notifications, attempts) VALUES (?, ?, 1, ?)
     ON CONFLICT (project_id, day) DO UPDATE SET
       notifications = notifications + 1,
       attempts = attempts + excluded.attempts`,
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

  // Runs inside a group commit's savepoint: all of it or none of it is written.
  const create = (input: CreateNotificationInput): CreateNotificationResult => {
    const { notification, idempotencyKey } = input;
    const browserIds = connectedBrowsers.all(notification.projectId, notification.recipient);
    if (browserIds.length === 0) return { kind: 'no-connected-browser' };

    insertNotification.run({
      id: notification.id,
      project_id: notification.projectId,
      mode: notification.mode,
      recipient: notification.recipient,
      title: notification.title,
      body: notification.body,
      url: notification.url,
      icon: notification.icon,
      tag: notification.tag,
      data: notification.data === null ? null : JSON.stringify(notification.data),
      ttl: notification.ttl,
      created_at: notification.createdAt,
      expires_at: notification.expiresAt,
    });
    // Test mode records its attempts final at once: nothing will ever be sent for them.
    const final = notification.mode === 'test';
    const attempts = browserIds.map((browserId): AttemptRecord => {
      const attempt: AttemptRecord = {
        id: input.newAttemptId(),
        notificationId: notification.id,
        browserId,
        seq: nextSeq.get(browserId)!,
        status: 'accepted',
        final,
        acceptedAt: notification.createdAt,
        sentAt: null,
        deliveredAt: null,
        failedAt: null,
        expiredAt: null,
        reason: null,
        displayedAt: null,
        clickedAt: null,
        dismissedAt: null,
      };
      insertAttempt.run(
        attempt.id,
        notification.id,
        browserId,
        attempt.seq,
        final ? 1 : 0,
        attempt.acceptedAt,
        notification.expiresAt,
      );
      return attempt;
    });

    const created = { notification, attempts };
    const response = input.render(created);
    if (idempotencyKey !== null) {
      completeIdempotency.run(response.status, response.body, notification.projectId, idempotencyKey);
    }
    if (notification.mode === 'live') {
      countUsage.run(notification.projectId, utcDay(notification.createdAt), attempts.length);
    }
    return { kind: 'created', created, response };
  };

  return {
    async createNotification(input) {
      return groupCommit.run(
        () => create(input),
        (result) => {
          if (result.kind === 'created') cache.keep(result.created);
        },
      );
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
  };
}
