import type { Delivery } from '@tidings/core';
import type { DeliveryStore } from '@tidings/core/store';
import type { Pool } from 'pg';
import { run, type Sql } from './db.js';

type PendingDeliveryOperations = Pick<DeliveryStore, 'listPendingDeliveries'>;

/**
 * What the open streams of many browsers should have received, read at once when an instance
 * catches its streams up after its hub may have lost messages: one statement for the pending
 * attempts of every browser (after the seq its streams hold), one for the browsers that are no
 * longer connected.
 */
export function pendingDeliveryOperations(pool: Pool, sql: Sql): PendingDeliveryOperations {
  const { t, statement } = sql;
  // Each browser's attempts are read in a subquery of its own, which its ORDER BY keeps from
  // being merged into the join: it can only be planned as a walk of the partial index of pending
  // attempts from the browser's seq, and a lookup of each attempt's notification, so a read
  // touches the rows of its browsers only. Joined flat, the planner chose by the tables' last
  // statistics; taken while few attempts were pending, they made it hash every pending attempt
  // and every notification for each read, a cost that grew with the backlog of the whole store.
  const selectPending = statement(
    'select_pending_of_many',
    `SELECT d.* FROM (SELECT id, min(after) AS after FROM unnest($1::text[], $3::int8[]) AS b(id, after) GROUP BY id) AS b
       CROSS JOIN LATERAL (
         SELECT a.id AS "attemptId", a.browser_id AS "browserId", a.seq, n.id AS "notificationId", n.title,
                n.body, n.url, n.icon, n.tag, n.data, n.created_at AS "createdAt", n.expires_at AS "expiresAt",
                NULL::bigint AS "inboxVersion"
           FROM ${t('attempts')} AS a JOIN ${t('notifications')} AS n ON n.id = a.notification_id
          WHERE a.browser_id = b.id AND a.seq > b.after AND NOT a.final AND a.expires_at > $2
          ORDER BY a.seq
       ) AS d
      ORDER BY d."browserId", d.seq`,
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
