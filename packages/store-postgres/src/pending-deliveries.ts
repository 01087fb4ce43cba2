import type { Delivery, Store } from '@tidings/core';
import type { Pool } from 'pg';
import { run, type Sql } from './db.js';

type PendingDeliveryOperations = Pick<Store, 'listPendingDeliveries'>;

/**
 * What the open streams of many browsers should have received, read at once when an instance
 * catches its streams up after its hub may have lost messages: one statement for the pending
 * attempts of every browser (after the seq its streams hold), one for the browsers that are no
 * longer connected.
 */
export function pendingDeliveryOperations(pool: Pool, sql: Sql): PendingDeliveryOperations {
  const { t, statement } = sql;
  const selectPending = statement(
    'select_pending_of_many',
    `SELECT a.id AS "attemptId", a.browser_id AS "browserId", a.seq, n.id AS "notificationId", n.title, n.body,
            n.url, n.icon, n.tag, n.data, n.created_at AS "createdAt", n.expires_at AS "expiresAt"
       FROM (SELECT id, min(after) AS after FROM unnest($1::text[], $3::int8[]) AS b(id, after) GROUP BY id) AS b
       JOIN ${t('attempts')} AS a ON a.browser_id = b.id AND a.seq > b.after AND NOT a.final
       JOIN ${t('notifications')} AS n ON n.id = a.notification_id
      WHERE a.expires_at > $2
      ORDER BY a.browser_id, a.seq`,
    { planEachRun: true },
  );
  const selectNotConnected = statement(
    'select_not_connected',
    `SELECT DISTINCT ids.id FROM unnest($1::text[]) AS ids (id)
      WHERE NOT EXISTS (SELECT 1 FROM ${t('browsers')} AS b WHERE b.id = ids.id AND b.connected)`,
    { planEachRun: true },
  );
  return {
    async listPendingDeliveries({ browserIds, now, afterSeqs }) {
      if (browserIds.length === 0) return { deliveries: [], disconnectedBrowserIds: [] };
      const after = browserIds.map((_, i) => afterSeqs?.[i] ?? 0);
      const [deliveries, notConnected] = await Promise.all([
        run<Delivery>(pool, selectPending, [browserIds, now, after]),
        run<{ id: string }>(pool, selectNotConnected, [browserIds]),
      ]);
      return { deliveries, disconnectedBrowserIds: notConnected.map((row) => row.id) };
    },
  };
}
