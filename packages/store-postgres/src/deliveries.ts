import type { Delivery, Receipt, ReceiptType } from '@tidings/core';
import {
  type AppliedReceipts,
  ATTEMPT_EVENT_SUBSCRIPTIONS,
  type DeliveryStore,
  type WebhookChange,
} from '@tidings/core/store';
import type { Pool } from 'pg';
import { deliveredAtFor, sentAtFor } from './attempt-times.js';
import { type Queryable, run, type Sql, type Statement, transaction } from './db.js';
import type { RecordWebhookEvents } from './webhook-messages.js';

type DeliveryOperations = Pick<DeliveryStore, 'listDeliveries' | 'markAttemptsSent' | 'applyReceipts'>;

/** The receipts of one batch for one attempt: the first time of each kind, as the receipts are applied in order. */
interface AttemptReceipts {
  count: number;
  times: Partial<Record<ReceiptType, number>>;
}

/** What a browser's stream or poll receives, and what the browser reports back. */
export function deliveryOperations(pool: Pool, sql: Sql, recordEvents: RecordWebhookEvents): DeliveryOperations {
  const { t, statement } = sql;
  // `NOT final` leaves out test mode's attempts (accepted, but final) and reads through the
  // partial index of pending attempts, already in stream order.
  const selectDeliveries = statement(
    'select_deliveries',
    `SELECT a.id AS "attemptId", a.browser_id AS "browserId", a.seq, n.id AS "notificationId", n.title, n.body,
            n.url, n.icon, n.tag, n.data, n.created_at AS "createdAt", n.expires_at AS "expiresAt",
            NULL::bigint AS "inboxVersion"
       FROM ${t('attempts')} AS a JOIN ${t('notifications')} AS n ON n.id = a.notification_id
      WHERE a.browser_id = $1 AND NOT a.final AND a.expires_at > $2
      ORDER BY a.seq`,
  );
  // Rows of attempts are locked in the order of their ids by every statement that changes
  // several, so that two of them never wait on each other. Each is sent at the time it was
  // written, or at the time of a receipt that came first when that is earlier (attempt-times.ts).
  const markSent = statement(
    'mark_sent',
    `WITH written AS (
       SELECT * FROM unnest($2::text[], $1::int8[]) AS w(id, at)
     ), sent AS (
       SELECT a.id, written.at FROM ${t('attempts')} AS a JOIN written ON written.id = a.id
        WHERE a.status = 'accepted' AND NOT a.final
        ORDER BY a.id FOR NO KEY UPDATE OF a
     )
     UPDATE ${t('attempts')} AS a SET status = 'sent', sent_at = ${sentAtFor('sent.at', 'a')}, sent_via = $3
       FROM sent WHERE a.id = sent.id AND a.status = 'accepted' AND NOT a.final`,
    { planEachRun: true },
  );
  // One statement for a whole batch: per attempt, the first time of each receipt kind. Receipt
  // times are written once; a delivered receipt ends only an attempt that is not final, and
  // proves it was sent even when the batched record of sending has not landed yet. Whatever order
  // they arrive in, sending comes no later than delivery, and delivery no later than what the
  // browser did with the attempt (attempt-times.ts). The row lock reads the latest times and
  // `final`, so of two batches racing on one attempt only one delivers it.
  const applyBatchSql = (guard: string) =>
    `WITH receipt AS (
       SELECT * FROM unnest($2::text[], $3::int8[], $4::int8[], $5::int8[], $6::int8[])
         AS r(id, delivered, displayed, clicked, dismissed)
     ), own AS (
       SELECT a.id, a.final, a.sent_at, a.delivered_at, a.displayed_at, a.clicked_at, a.dismissed_at
         FROM ${t('attempts')} AS a JOIN receipt ON receipt.id = a.id
        WHERE a.browser_id = $1${guard} ORDER BY a.id FOR NO KEY UPDATE OF a
     ), next AS (
       SELECT own.id, r.delivered IS NOT NULL AND NOT own.final AS delivering,
              (r.displayed IS NOT NULL AND own.displayed_at IS NULL) OR (r.clicked IS NOT NULL AND own.clicked_at IS NULL)
                OR (r.dismissed IS NOT NULL AND own.dismissed_at IS NULL) AS engaged,
              CASE WHEN r.delivered IS NOT NULL AND NOT own.final THEN coalesce(own.sent_at, r.delivered)
                   ELSE own.sent_at END AS sent_at,
              CASE WHEN r.delivered IS NOT NULL AND NOT own.final THEN r.delivered ELSE own.delivered_at END AS delivered_at,
              coalesce(own.displayed_at, r.displayed) AS displayed_at,
              coalesce(own.clicked_at, r.clicked) AS clicked_at,
              coalesce(own.dismissed_at, r.dismissed) AS dismissed_at
         FROM own JOIN receipt AS r ON r.id = own.id
     )
     UPDATE ${t('attempts')} AS a SET
       status = CASE WHEN n.delivering THEN 'delivered' ELSE a.status END,
       final = a.final OR n.delivering,
       sent_at = ${sentAtFor('n.sent_at', 'n')},
       delivered_at = ${deliveredAtFor('n.delivered_at', 'n')},
       displayed_at = n.displayed_at,
       clicked_at = n.clicked_at,
       dismissed_at = n.dismissed_at
       FROM next AS n
      WHERE a.id = n.id
     RETURNING a.id, a.notification_id, n.delivering AS delivered, n.delivering OR n.engaged AS changed`;
  const applyBatch = statement('apply_receipts', applyBatchSql(''), { planEachRun: true });
  // The same, applied only while the browser's project has no enabled webhook endpoint that
  // wants the events of an attempt: such a project pays one statement, outside a transaction,
  // as one without webhooks does, whatever else its endpoints want. With one, it changes nothing
  // and the batch runs again with its events, in a transaction.
  const wanted = ATTEMPT_EVENT_SUBSCRIPTIONS.map((type) => `'${type.replaceAll("'", "''")}'`).join(', ');
  const applyBatchUnhooked = statement(
    'apply_receipts_unhooked',
    applyBatchSql(`
          AND NOT EXISTS (
            SELECT 1 FROM ${t('webhook_endpoints')} AS e JOIN ${t('browsers')} AS b ON b.project_id = e.project_id
             WHERE b.id = $1 AND e.status = 'enabled' AND e.events && ARRAY[${wanted}]::text[])`),
    { planEachRun: true },
  );

  return {
    async listDeliveries({ browserId, now }) {
      return run<Delivery>(pool, selectDeliveries, [browserId, now]);
    },
    async markAttemptsSent({ attemptIds, now, via, sentAts }) {
      // Each attempt with the time it was written (or `now`).
      if (attemptIds.length > 0) {
        await run(pool, markSent, [attemptIds.map((_, i) => sentAts?.[i] ?? now), attemptIds, via]);
      }
    },
    async applyReceipts({ browserId, receipts, now }) {
      if (receipts.length === 0) return { named: 0, deliveredAttemptIds: [] };
      // A receipt of no attempt of the browser, or a project with an endpoint, is answered by no
      // row: the batch then runs again below, where both are told apart.
      const { applied: unhooked } = await apply(pool, browserId, receipts, applyBatchUnhooked);
      if (unhooked.named > 0) return unhooked;
      // With the webhook events of what changed, in the same transaction.
      return transaction(pool, async (client) => {
        const { applied, changes } = await apply(client, browserId, receipts, applyBatch);
        await recordEvents(client, changes, now);
        return applied;
      });
    },
  };

  async function apply(
    db: Queryable,
    browserId: string,
    receipts: Receipt[],
    batch: Statement,
  ): Promise<{ applied: AppliedReceipts; changes: WebhookChange[] }> {
    if (receipts.length === 0) return { applied: { named: 0, deliveredAttemptIds: [] }, changes: [] };
    const byAttempt = groupReceipts(receipts);
    const ids = [...byAttempt.keys()];
    const column = (type: ReceiptType) => ids.map((id) => byAttempt.get(id)!.times[type] ?? null);
    const own = await run<{ id: string; notification_id: string; delivered: boolean; changed: boolean }>(db, batch, [
      browserId,
      ids,
      column('delivered'),
      column('displayed'),
      column('clicked'),
      column('dismissed'),
    ]);
    const delivered = new Set(own.filter((row) => row.delivered).map((row) => row.id));
    const changed = new Map(own.filter((row) => row.changed).map((row) => [row.id, row]));
    const applied = {
      named: own.reduce((named, row) => named + byAttempt.get(row.id)!.count, 0),
      // In the order the receipts named them.
      deliveredAttemptIds: ids.filter((id) => delivered.has(id)),
    };
    const changes: WebhookChange[] = ids
      .filter((id) => changed.has(id))
      .map((id) => ({
        kind: 'attempt',
        attemptId: id,
        notificationId: changed.get(id)!.notification_id,
        ended: delivered.has(id),
      }));
    return { applied, changes };
  }
}

/** Receipts by attempt, keeping the first time of each kind. */
function groupReceipts(receipts: Receipt[]): Map<string, AttemptReceipts> {
  const byAttempt = new Map<string, AttemptReceipts>();
  for (const receipt of receipts) {
    let entry = byAttempt.get(receipt.attemptId);
    if (!entry) {
      entry = { count: 0, times: {} };
      byAttempt.set(receipt.attemptId, entry);
    }
    entry.count++;
    entry.times[receipt.type] ??= receipt.at;
  }
  return byAttempt;
}
