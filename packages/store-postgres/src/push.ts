import type { PushSubscriptionRecord, VapidKeyRecord } from '@tidings/core';
import type { PushStore } from '@tidings/core/store';
import type { Pool } from 'pg';
import { sentAtFor } from './attempt-times.js';
import { run, type Sql, transaction } from './db.js';
import type { RecordWebhookEvents } from './webhook-messages.js';

const VAPID = 'public_key AS "publicKey", private_key AS "privateKey", created_at AS "createdAt"';

const SUBSCRIPTION =
  's.browser_id AS "browserId", b.project_id AS "projectId", s.endpoint, s.p256dh, s.auth, ' +
  's.created_at AS "createdAt", s.updated_at AS "updatedAt", s.expires_at AS "expiresAt"';

/** Web Push: the deployment's VAPID keys, the browsers' subscriptions, and what a push did to an attempt. */
export function pushOperations(pool: Pool, sql: Sql, recordEvents: RecordWebhookEvents): PushStore {
  const { t, statement } = sql;
  const selectVapid = statement('select_vapid', `SELECT ${VAPID} FROM ${t('vapid_keys')} WHERE id = 1`);
  // The first pair committed stays: an insert racing with another waits for its commit and then
  // does nothing, and the read that follows (a new snapshot) sees the winner.
  const insertVapid = statement(
    'insert_vapid',
    `INSERT INTO ${t('vapid_keys')} (id, public_key, private_key, created_at) VALUES (1, $1, $2, $3)
     ON CONFLICT (id) DO NOTHING`,
  );
  const replaceVapid = statement(
    'replace_vapid',
    `INSERT INTO ${t('vapid_keys')} (id, public_key, private_key, created_at) VALUES (1, $1, $2, $3)
     ON CONFLICT (id) DO UPDATE SET public_key = excluded.public_key, private_key = excluded.private_key,
       created_at = excluded.created_at
     RETURNING ${VAPID}`,
  );
  // The browser's row lock orders a save with a disconnection, which deletes the subscription.
  const lockBrowser = statement(
    'lock_browser_for_push',
    `SELECT connected FROM ${t('browsers')} WHERE id = $1 FOR NO KEY UPDATE`,
  );
  const upsertSubscription = statement(
    'upsert_push_subscription',
    `WITH saved AS (
       INSERT INTO ${t('push_subscriptions')} AS p (browser_id, endpoint, p256dh, auth, created_at, updated_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $5, $6)
       ON CONFLICT (browser_id) DO UPDATE SET
         created_at = CASE WHEN p.endpoint = excluded.endpoint THEN p.created_at ELSE excluded.created_at END,
         endpoint = excluded.endpoint, p256dh = excluded.p256dh, auth = excluded.auth,
         updated_at = excluded.updated_at, expires_at = excluded.expires_at
       RETURNING *
     ), seen AS (
       UPDATE ${t('browsers')} SET last_seen_at = greatest(last_seen_at, $5) WHERE id = $1 RETURNING project_id
     )
     SELECT s.browser_id AS "browserId", seen.project_id AS "projectId", s.endpoint, s.p256dh, s.auth,
            s.created_at AS "createdAt", s.updated_at AS "updatedAt", s.expires_at AS "expiresAt"
       FROM saved AS s, seen`,
  );
  const selectSubscription = statement(
    'select_push_subscription',
    `SELECT ${SUBSCRIPTION} FROM ${t('push_subscriptions')} AS s JOIN ${t('browsers')} AS b ON b.id = s.browser_id
      WHERE s.browser_id = $1`,
  );
  const deleteSubscription = statement(
    'delete_push_subscription',
    `DELETE FROM ${t('push_subscriptions')} WHERE browser_id = $1 RETURNING browser_id`,
  );
  const subscribedBrowsers = statement(
    'select_push_subscribed',
    `SELECT b.id FROM ${t('browsers')} AS b JOIN ${t('push_subscriptions')} AS s ON s.browser_id = b.id
      WHERE b.project_id = $1 AND b.recipient = $2 AND b.connected ORDER BY b.id`,
  );
  // Sent at the push service's answer, unless a receipt of the attempt came earlier
  // (attempt-times.ts): the service worker may report before the push's request is answered.
  const markPushed = statement(
    'mark_attempt_pushed',
    `UPDATE ${t('attempts')} SET
       push_accepted_at = coalesce(push_accepted_at, $2),
       sent_at = coalesce(sent_at, ${sentAtFor('$2::int8')}),
       sent_via = CASE WHEN final AND sent_via IS NOT NULL THEN sent_via ELSE 'push' END,
       status = CASE WHEN status = 'accepted' AND NOT final THEN 'sent' ELSE status END
     WHERE id = $1
     RETURNING id, notification_id`,
  );
  const lockAttempt = statement(
    'lock_attempt_for_push',
    `SELECT push_accepted_at FROM ${t('attempts')} WHERE id = $1 FOR NO KEY UPDATE`,
  );
  const failOne = statement(
    'fail_attempt',
    `UPDATE ${t('attempts')} SET status = 'failed', final = true, reason = $2, failed_at = $3
      WHERE id = $1 AND NOT final
     RETURNING id, notification_id`,
  );

  return {
    async getVapidKeys() {
      const [row] = await run<VapidKeyRecord>(pool, selectVapid);
      return row ?? null;
    },
    async ensureVapidKeys({ publicKey, privateKey, now }) {
      await run(pool, insertVapid, [publicKey, privateKey, now]);
      return (await run<VapidKeyRecord>(pool, selectVapid))[0]!;
    },
    async rotateVapidKeys({ publicKey, privateKey, now }) {
      return (await run<VapidKeyRecord>(pool, replaceVapid, [publicKey, privateKey, now]))[0]!;
    },
    async putPushSubscription({ browserId, endpoint, p256dh, auth, expiresAt, now }) {
      return transaction(pool, async (client) => {
        const [browser] = await run<{ connected: boolean }>(client, lockBrowser, [browserId]);
        if (!browser) return { kind: 'not-found' as const };
        if (!browser.connected) return { kind: 'browser-disconnected' as const };
        const [subscription] = await run<PushSubscriptionRecord>(client, upsertSubscription, [
          browserId,
          endpoint,
          p256dh,
          auth,
          now,
          expiresAt,
        ]);
        return { kind: 'saved' as const, subscription: subscription! };
      });
    },
    async getPushSubscription(browserId) {
      const [row] = await run<PushSubscriptionRecord>(pool, selectSubscription, [browserId]);
      return row ?? null;
    },
    async deletePushSubscription({ browserId }) {
      return (await run(pool, deleteSubscription, [browserId])).length > 0;
    },
    async listPushSubscribedBrowsers({ projectId, recipient }) {
      return (await run<{ id: string }>(pool, subscribedBrowsers, [projectId, recipient])).map((row) => row.id);
    },
    async markAttemptPushed({ attemptId, now }) {
      return transaction(pool, async (client) => {
        // The first acceptance changes the attempt (its push_accepted_at): that one is an event.
        const [before] = await run<{ push_accepted_at: number | null }>(client, lockAttempt, [attemptId]);
        if (!before) return false;
        const [row] = await run<{ notification_id: string }>(client, markPushed, [attemptId, now]);
        if (row && before.push_accepted_at === null) {
          await recordEvents(
            client,
            [{ kind: 'attempt', attemptId, notificationId: row.notification_id, ended: false }],
            now,
          );
        }
        return row !== undefined;
      });
    },
    async failAttempt({ attemptId, reason, now }) {
      return transaction(pool, async (client) => {
        const [row] = await run<{ notification_id: string }>(client, failOne, [attemptId, reason, now]);
        if (!row) return false;
        await recordEvents(
          client,
          [{ kind: 'attempt', attemptId, notificationId: row.notification_id, ended: true }],
          now,
        );
        return true;
      });
    },
  };
}
