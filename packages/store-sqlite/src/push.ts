import type { PushSubscriptionRecord, Store, VapidKeyRecord } from '@tidings/core';
import type { PushStore } from '@tidings/core/store';
import type Database from 'better-sqlite3';
import { sentAtFor } from './attempt-times.js';
import type { GroupCommit } from './group-commit.js';
import type { NotificationCache } from './notification-cache.js';
import type { RecordWebhookEvents } from './webhook-messages.js';

interface VapidRow {
  public_key: string;
  private_key: string;
  created_at: number;
}

interface SubscriptionRow {
  browser_id: string;
  project_id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
  created_at: number;
  updated_at: number;
  expires_at: number | null;
}

function vapidFromRow(row: VapidRow): VapidKeyRecord {
  return { publicKey: row.public_key, privateKey: row.private_key, createdAt: row.created_at };
}

function subscriptionFromRow(row: SubscriptionRow): PushSubscriptionRecord {
  return {
    browserId: row.browser_id,
    projectId: row.project_id,
    endpoint: row.endpoint,
    p256dh: row.p256dh,
    auth: row.auth,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    expiresAt: row.expires_at,
  };
}

/** Web Push: the deployment's VAPID keys, the browsers' subscriptions, and what a push did to an attempt. */
export function pushOperations(
  db: Database.Database,
  cache: NotificationCache,
  recordEvents: RecordWebhookEvents,
  group: GroupCommit<unknown>,
): PushStore {
  const selectVapid = db.prepare<[], VapidRow>(
    'SELECT public_key, private_key, created_at FROM vapid_keys WHERE id = 1',
  );
  // The first pair stored stays: of processes starting together, each inserts its own and reads
  // back the one that won.
  const insertVapid = db.prepare<[string, string, number]>(
    'INSERT INTO vapid_keys (id, public_key, private_key, created_at) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO NOTHING',
  );
  const replaceVapid = db.prepare<[string, string, number]>(
    `INSERT INTO vapid_keys (id, public_key, private_key, created_at) VALUES (1, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET public_key = excluded.public_key, private_key = excluded.private_key,
       created_at = excluded.created_at`,
  );
  const selectConnected = db.prepare<[string], number>('SELECT connected FROM browsers WHERE id = ?').pluck();
  // A new endpoint is a new subscription (created now); the same one renewed keeps its creation.
  const upsertSubscription = db.prepare<[string, string, string, string, number, number, number | null]>(
    `INSERT INTO push_subscriptions (browser_id, endpoint, p256dh, auth, created_at, updated_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (browser_id) DO UPDATE SET
       created_at = CASE WHEN push_subscriptions.endpoint = excluded.endpoint
                         THEN push_subscriptions.created_at ELSE excluded.created_at END,
       endpoint = excluded.endpoint, p256dh = excluded.p256dh, auth = excluded.auth,
       updated_at = excluded.updated_at, expires_at = excluded.expires_at`,
  );
  const touch = db.prepare<[number, string]>('UPDATE browsers SET last_seen_at = max(last_seen_at, ?) WHERE id = ?');
  const selectSubscription = db.prepare<[string], SubscriptionRow>(
    `SELECT s.*, b.project_id FROM push_subscriptions AS s JOIN browsers AS b ON b.id = s.browser_id
      WHERE s.browser_id = ?`,
  );
  const deleteSubscription = db.prepare<[string]>('DELETE FROM push_subscriptions WHERE browser_id = ?');
  const subscribedBrowsers = db
    .prepare<[string, string], string>(
      `SELECT b.id FROM browsers AS b JOIN push_subscriptions AS s ON s.browser_id = b.id
        WHERE b.project_id = ? AND b.recipient = ? AND b.connected = 1 ORDER BY b.id`,
    )
    .pluck();
  // Sent at the push service's answer, unless a receipt of the attempt came earlier
  // (attempt-times.ts): the service worker may report before the push's request is answered.
  const markPushed = db
    .prepare<[{ now: number; id: string }], string>(
      `UPDATE attempts SET
         push_accepted_at = coalesce(push_accepted_at, @now),
         sent_at = coalesce(sent_at, ${sentAtFor('@now')}),
         sent_via = CASE WHEN final = 1 AND sent_via IS NOT NULL THEN sent_via ELSE 'push' END,
         status = CASE WHEN status = 'accepted' AND final = 0 THEN 'sent' ELSE status END
       WHERE id = @id
       RETURNING notification_id`,
    )
    .pluck();
  const pushAcceptedAt = db
    .prepare<[string], number | null>('SELECT push_accepted_at FROM attempts WHERE id = ?')
    .pluck();
  const failOne = db
    .prepare<[string, number, string], string>(
      `UPDATE attempts SET status = 'failed', final = 1, reason = ?, failed_at = ? WHERE id = ? AND final = 0
       RETURNING notification_id`,
    )
    .pluck();

  // The first acceptance changes the attempt (its push_accepted_at): that one is an event.
  // Run inside the group commit's transaction (markAttemptPushed).
  const pushed = (attemptId: string, now: number) => {
    const before = pushAcceptedAt.get(attemptId);
    const changed = markPushed.all({ now, id: attemptId });
    cache.forget(changed);
    if (changed.length > 0 && before === null) {
      recordEvents([{ kind: 'attempt', attemptId, notificationId: changed[0]!, ended: false }], now);
    }
    return changed.length > 0;
  };
  const fail = db.transaction((attemptId: string, reason: string, now: number) => {
    const changed = failOne.all(reason, now, attemptId);
    cache.forget(changed);
    if (changed.length > 0)
      recordEvents([{ kind: 'attempt', attemptId, notificationId: changed[0]!, ended: true }], now);
    return changed.length > 0;
  });
  const ensure = db.transaction((publicKey: string, privateKey: string, now: number) => {
    insertVapid.run(publicKey, privateKey, now);
    return vapidFromRow(selectVapid.get()!);
  });
  const rotate = db.transaction((publicKey: string, privateKey: string, now: number) => {
    replaceVapid.run(publicKey, privateKey, now);
    return vapidFromRow(selectVapid.get()!);
  });
  const put = db.transaction((input: Parameters<Store['putPushSubscription']>[0]) => {
    const connected = selectConnected.get(input.browserId);
    if (connected === undefined) return { kind: 'not-found' as const };
    if (connected === 0) return { kind: 'browser-disconnected' as const };
    upsertSubscription.run(
      input.browserId,
      input.endpoint,
      input.p256dh,
      input.auth,
      input.now,
      input.now,
      input.expiresAt,
    );
    touch.run(input.now, input.browserId);
    return { kind: 'saved' as const, subscription: subscriptionFromRow(selectSubscription.get(input.browserId)!) };
  });

  return {
    async getVapidKeys() {
      const row = selectVapid.get();
      return row ? vapidFromRow(row) : null;
    },
    async ensureVapidKeys({ publicKey, privateKey, now }) {
      return ensure.immediate(publicKey, privateKey, now);
    },
    async rotateVapidKeys({ publicKey, privateKey, now }) {
      return rotate.immediate(publicKey, privateKey, now);
    },
    async putPushSubscription(input) {
      return put.immediate(input);
    },
    async getPushSubscription(browserId) {
      const row = selectSubscription.get(browserId);
      return row ? subscriptionFromRow(row) : null;
    },
    async deletePushSubscription({ browserId }) {
      return deleteSubscription.run(browserId).changes > 0;
    },
    async listPushSubscribedBrowsers({ projectId, recipient }) {
      return subscribedBrowsers.all(projectId, recipient);
    },
    // In the group commit, not waited for on disk (a push recorded twice is recorded once): the
    // pushes of concurrent jobs, their outcomes and the runner's next claim share a transaction.
    markAttemptPushed({ attemptId, now }) {
      return group.run(() => pushed(attemptId, now), { durable: false });
    },
    async failAttempt({ attemptId, reason, now }) {
      return fail.immediate(attemptId, reason, now);
    },
  };
}
