import type { EndedAttempt } from '@tidings/core';
import { type MaintenanceStore, WEBHOOK_MESSAGE_RETENTION_MS } from '@tidings/core/store';
import type { Pool } from 'pg';
import { run, type Sql, transaction } from './db.js';
import type { RecordWebhookEvents } from './webhook-messages.js';

type MaintenanceOperations = Omit<MaintenanceStore, 'close'>;

/**
 * The periodic sweeps. Every instance runs them; SKIP LOCKED lets sweeps running at once each
 * take other rows, so none waits for another and no attempt is ended twice.
 */
export function maintenanceOperations(pool: Pool, sql: Sql, recordEvents: RecordWebhookEvents): MaintenanceOperations {
  const { t, statement } = sql;
  // Reads through the partial index of pending attempts by expiry: the sweep costs what has
  // expired, not what is pending. The row lock re-checks `NOT final` on the latest version, so an
  // attempt delivered meanwhile stays delivered.
  const expire = statement(
    'expire_attempts',
    `WITH expired AS (
       SELECT id FROM ${t('attempts')} WHERE NOT final AND expires_at <= $1
        ORDER BY id FOR NO KEY UPDATE SKIP LOCKED
     )
     UPDATE ${t('attempts')} AS a SET status = 'expired', final = true, reason = 'ttl_expired', expired_at = $1
       FROM expired WHERE a.id = expired.id AND NOT a.final
     RETURNING a.id AS "attemptId", a.browser_id AS "browserId", a.notification_id AS "notificationId"`,
    { planEachRun: true },
  );
  const purge = statement(
    'purge_expired',
    `WITH tokens AS (DELETE FROM ${t('connect_tokens')} WHERE expires_at <= $1),
          jobs AS (DELETE FROM ${t('jobs')} WHERE status IN ('done', 'failed') AND keep_until <= $1),
          messages AS (DELETE FROM ${t('webhook_messages')} WHERE created_at <= $2)
     DELETE FROM ${t('idempotency_keys')} WHERE expires_at <= $1`,
  );

  return {
    async expireAttempts({ now }) {
      const rows = await transaction(pool, async (client) => {
        const expired = await run<EndedAttempt & { notificationId: string }>(client, expire, [now]);
        expired.sort(
          (a, b) =>
            compare(a.notificationId, b.notificationId) ||
            compare(a.browserId, b.browserId) ||
            compare(a.attemptId, b.attemptId),
        );
        await recordEvents(
          client,
          expired.map((row) => ({
            kind: 'attempt',
            attemptId: row.attemptId,
            notificationId: row.notificationId,
            ended: true,
          })),
          now,
        );
        return expired;
      });
      rows.sort(
        (a, b) =>
          compare(a.notificationId, b.notificationId) ||
          compare(a.browserId, b.browserId) ||
          compare(a.attemptId, b.attemptId),
      );
      return rows.map(({ attemptId, browserId }) => ({ attemptId, browserId }));
    },
    async purgeExpired({ now }) {
      await run(pool, purge, [now, now - WEBHOOK_MESSAGE_RETENTION_MS]);
    },
  };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
