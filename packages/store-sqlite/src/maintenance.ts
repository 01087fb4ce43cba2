import type { EndedAttempt } from '@tidings/core';
import { type MaintenanceStore, WEBHOOK_MESSAGE_RETENTION_MS } from '@tidings/core/store';
import type Database from 'better-sqlite3';
import type { NotificationCache } from './notification-cache.js';
import type { RecordWebhookEvents } from './webhook-messages.js';

type MaintenanceOperations = Omit<MaintenanceStore, 'close'>;

interface PendingRow {
  attempt_id: string;
  browser_id: string;
  notification_id: string;
}

/** The periodic sweeps: attempts past their notification's expiry, and expired records and finished jobs. */
export function maintenanceOperations(
  db: Database.Database,
  cache: NotificationCache,
  recordEvents: RecordWebhookEvents,
): MaintenanceOperations {
  // Reads through the partial index of pending attempts by expiry, so the sweep costs what has
  // expired, not what is pending or what the store has ever held.
  const selectExpired = db.prepare<[number], PendingRow>(
    `SELECT id AS attempt_id, browser_id, notification_id FROM attempts
      WHERE final = 0 AND expires_at <= ?
      ORDER BY notification_id, browser_id`,
  );
  const expire = db.prepare<[number, string]>(
    "UPDATE attempts SET status = 'expired', final = 1, reason = 'ttl_expired', expired_at = ? WHERE id = ? AND final = 0",
  );
  const purgeIdempotency = db.prepare<[number]>('DELETE FROM idempotency_keys WHERE expires_at <= ?');
  const purgeTokens = db.prepare<[number]>('DELETE FROM connect_tokens WHERE expires_at <= ?');
  const purgeJobs = db.prepare<[number]>("DELETE FROM jobs WHERE status IN ('done', 'failed') AND keep_until <= ?");
  const purgeWebhookMessages = db.prepare<[number]>('DELETE FROM webhook_messages WHERE created_at <= ?');

  const expireAll = db.transaction((now: number): EndedAttempt[] => {
    const rows = selectExpired.all(now);
    for (const row of rows) expire.run(now, row.attempt_id);
    cache.forget(rows.map((row) => row.notification_id));
    recordEvents(
      rows.map((row) => ({
        kind: 'attempt',
        attemptId: row.attempt_id,
        notificationId: row.notification_id,
        ended: true,
      })),
      now,
    );
    return rows.map((row) => ({ attemptId: row.attempt_id, browserId: row.browser_id }));
  });
  const purge = db.transaction((now: number) => {
    purgeIdempotency.run(now);
    purgeTokens.run(now);
    purgeJobs.run(now);
    purgeWebhookMessages.run(now - WEBHOOK_MESSAGE_RETENTION_MS);
  });

  return {
    async expireAttempts({ now }) {
      return expireAll.immediate(now);
    },
    async purgeExpired({ now }) {
      purge.immediate(now);
    },
  };
}
