import type { Delivery, ReceiptType } from '@tidings/core';
import {
  type AppliedReceipts,
  ATTEMPT_EVENT_SUBSCRIPTIONS,
  type DeliveryStore,
  type WebhookChange,
} from '@tidings/core/store';
import type Database from 'better-sqlite3';
import { deliveredAtFor, earlierTimesNoLaterThan, sentAtFor } from './attempt-times.js';
import type { GroupCommit } from './group-commit.js';
import type { NotificationCache } from './notification-cache.js';
import { parseData } from './rows.js';
import type { RecordWebhookEvents } from './webhook-messages.js';

type ApplyReceiptsInput = Parameters<DeliveryStore['applyReceipts']>[0];

interface DeliveryRow {
  attempt_id: string;
  browser_id: string;
  seq: number;
  notification_id: string;
  title: string;
  body: string | null;
  url: string | null;
  icon: string | null;
  tag: string | null;
  data: string | null;
  created_at: number;
  expires_at: number;
}

function deliveryFromRow(row: DeliveryRow): Delivery {
  return {
    attemptId: row.attempt_id,
    browserId: row.browser_id,
    seq: row.seq,
    notificationId: row.notification_id,
    title: row.title,
    body: row.body,
    url: row.url,
    icon: row.icon,
    tag: row.tag,
    data: parseData(row.data),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    // Sent again (a resume, a poll): the browser's list is read again anyway.
    inboxVersion: null,
  };
}

/** What a browser's stream or poll receives, and what the browser reports back. */
export function deliveryOperations(
  db: Database.Database,
  groupCommit: GroupCommit<unknown>,
  cache: NotificationCache,
  recordEvents: RecordWebhookEvents,
): DeliveryStore {
  // `final = 0` leaves out test mode's attempts (accepted, but final) and reads through the
  // partial index of pending attempts, already in stream order.
  const selectDeliveries = db.prepare<[string, number], DeliveryRow>(
    `SELECT a.id AS attempt_id, a.browser_id, a.seq, n.id AS notification_id, n.title, n.body, n.url,
            n.icon, n.tag, n.data, n.created_at, n.expires_at
       FROM attempts AS a JOIN notifications AS n ON n.id = a.notification_id
      WHERE a.browser_id = ? AND a.final = 0 AND n.expires_at > ?
      ORDER BY a.seq`,
  );
  // The same for many browsers, each after a seq of its own: [id, after] pairs as one JSON array,
  // each browser through the same index.
  const selectPendingOfMany = db.prepare<[string, number], DeliveryRow>(
    `SELECT a.id AS attempt_id, a.browser_id, a.seq, n.id AS notification_id, n.title, n.body, n.url,
            n.icon, n.tag, n.data, n.created_at, n.expires_at
       FROM (SELECT value ->> 0 AS id, min(value ->> 1) AS after FROM json_each(?) GROUP BY 1) AS b
       JOIN attempts AS a ON a.browser_id = b.id AND a.seq > b.after AND a.final = 0
       JOIN notifications AS n ON n.id = a.notification_id
      WHERE n.expires_at > ?
      ORDER BY a.browser_id, a.seq`,
  );
  const selectNotConnected = db
    .prepare<[string], string>(
      `SELECT DISTINCT j.value FROM json_each(?) AS j
        WHERE NOT EXISTS (SELECT 1 FROM browsers AS b WHERE b.id = j.value AND b.connected = 1)`,
    )
    .pluck();
  // Both in one read transaction, so that they describe one moment.
  const readPending = db.transaction((after: string, ids: string, now: number) => ({
    deliveries: selectPendingOfMany.all(after, now).map(deliveryFromRow),
    disconnectedBrowserIds: selectNotConnected.all(ids),
  }));
  // One statement for a whole batch of ids (a JSON array), not one per attempt.
  // Every write to attempts returns the notifications it changed, which the cache then forgets.
  // `[[id, sentAt], …]`: each attempt with the time it was written, or the time of a receipt
  // that came first when that is earlier (attempt-times.ts).
  const markSent = db
    .prepare<[string, string], string>(
      `UPDATE attempts SET status = 'sent', sent_at = ${sentAtFor('sent.at')}, sent_via = ?
         FROM (SELECT value ->> 0 AS id, value ->> 1 AS at FROM json_each(?)) AS sent
        WHERE attempts.id = sent.id AND attempts.status = 'accepted' AND attempts.final = 0
        RETURNING attempts.notification_id`,
    )
    .pluck();
  const isOwnAttempt = db
    .prepare<[string, string], number>('SELECT 1 FROM attempts WHERE id = ? AND browser_id = ?')
    .pluck();
  // Receipt times are written once: a repeated or late receipt never moves them. A delivered
  // receipt proves the attempt was sent, even when the batched record of sending has not landed
  // yet. Whatever order they arrive in, sending comes no later than delivery, and delivery no
  // later than what the browser did with the attempt (attempt-times.ts).
  const receiptUpdate = (sql: string) =>
    db.prepare<[{ at: number; id: string }], string>(`${sql} RETURNING notification_id`).pluck();
  const engagement = (column: string) =>
    receiptUpdate(
      `UPDATE attempts SET ${column} = @at, ${earlierTimesNoLaterThan('@at')} WHERE id = @id AND ${column} IS NULL`,
    );
  const apply: Record<ReceiptType, Database.Statement<[{ at: number; id: string }], string>> = {
    delivered: receiptUpdate(
      `UPDATE attempts SET status = 'delivered', final = 1, delivered_at = ${deliveredAtFor('@at')},
              sent_at = MIN(COALESCE(sent_at, @at), ${deliveredAtFor('@at')})
        WHERE id = @id AND final = 0`,
    ),
    displayed: engagement('displayed_at'),
    clicked: engagement('clicked_at'),
    dismissed: engagement('dismissed_at'),
  };

  // Whether the browser's project has an enabled endpoint that wants the events of an attempt:
  // without one, receipts record no event and read nothing more, whatever else the project's
  // endpoints want, so a project with webhooks pays for its receipts what one without does.
  const attemptEventsWanted = db
    .prepare<[string, string], number>(
      `SELECT 1 FROM browsers AS b JOIN webhook_endpoints AS e ON e.project_id = b.project_id
        WHERE b.id = ? AND e.status = 'enabled'
          AND EXISTS (SELECT 1 FROM json_each(e.events) WHERE value IN (SELECT value FROM json_each(?)))
        LIMIT 1`,
    )
    .pluck();
  const subscriptions = JSON.stringify(ATTEMPT_EVENT_SUBSCRIPTIONS);

  // IMMEDIATE, like every write: it takes the write lock (waiting busyTimeoutMs) before reading.
  const applyAll = db.transaction((input: ApplyReceiptsInput): AppliedReceipts => {
    const { browserId, receipts } = input;
    let named = 0;
    const deliveredAttemptIds: string[] = [];
    const changes: WebhookChange[] = [];
    for (const receipt of receipts) {
      if (!isOwnAttempt.get(receipt.attemptId, browserId)) continue;
      named++;
      const changed = apply[receipt.type].all({ at: receipt.at, id: receipt.attemptId });
      if (changed.length > 0 && receipt.type === 'delivered') deliveredAttemptIds.push(receipt.attemptId);
      if (changed.length > 0) {
        const ended = receipt.type === 'delivered';
        changes.push({ kind: 'attempt', attemptId: receipt.attemptId, notificationId: changed[0]!, ended });
      }
      cache.forget(changed);
    }
    if (changes.length > 0 && attemptEventsWanted.get(browserId, subscriptions) !== undefined) {
      recordEvents(changes, input.now);
    }
    return { named, deliveredAttemptIds };
  });

  return {
    async listDeliveries({ browserId, now }) {
      return selectDeliveries.all(browserId, now).map(deliveryFromRow);
    },
    async listPendingDeliveries({ browserIds, now, afterSeqs }) {
      if (browserIds.length === 0) return { deliveries: [], disconnectedBrowserIds: [] };
      const after = JSON.stringify(browserIds.map((id, i) => [id, afterSeqs?.[i] ?? 0]));
      return readPending.deferred(after, JSON.stringify(browserIds), now);
    },
    async markAttemptsSent({ attemptIds, now, via, sentAts }) {
      // Joins the group commit of the sends of this turn: one transaction for both. Not waited
      // for on disk: nobody is answered about it, the next durable write flushes it, and a record
      // lost to a power loss leaves the attempt accepted, to be sent again on resume.
      if (attemptIds.length > 0) {
        const sent = JSON.stringify(attemptIds.map((id, i) => [id, sentAts?.[i] ?? now]));
        await groupCommit.run(() => cache.forget(markSent.all(via, sent)), { durable: false });
      }
    },
    async applyReceipts(input) {
      if (input.receipts.length > 0) return applyAll.immediate(input);
      return { named: 0, deliveredAttemptIds: [] };
    },
  };
}
