import {
  type AttemptRecord,
  type CreateNotificationInput,
  type CreateNotificationResult,
  type NotificationRecord,
  type Store,
  type UsageDay,
  utcDay,
} from '@tidings/core';
import type { Pool, PoolClient } from 'pg';
import { ATTEMPT, NOTIFICATION } from './columns.js';
import { commitWith, type Ended, rollBack, run, type Sql, transaction } from './db.js';
import { type IdempotencyRow, idempotencyOutcome } from './idempotency.js';

type NotificationOperations = Pick<Store, 'createNotification' | 'getNotification' | 'getUsage'>;

/** A browser the send goes to, with the sequence number its attempt takes. */
interface TargetRow {
  id: string;
  seq: number;
}

/** What the first statement of a send returns: a stored result, or the browsers and their seqs. */
type ClaimRow = TargetRow & Partial<IdempotencyRow>;

/**
 * The status the claim of a key holds inside its send's transaction until the result replaces
 * it. Never committed, so never read: stored statuses are those of successful responses.
 */
const CLAIMED = 0;

/**
 * Notifications, their attempts, and the usage they count.
 *
 * A send is one transaction of two statements (see the package README):
 * 1. Claims the idempotency key, if any, and raises the sequence of every connected browser of
 *    the recipient under the browser's row lock. The claim is an upsert on the key's primary
 *    key: a concurrent send with the same key waits until this one commits or rolls back, then
 *    finds its result (replay or mismatch) or the key free.
 * 2. With the attempt ids made and the response rendered: inserts the notification, its
 *    attempts, the result under the key, and adds the live usage to the connection's shard.
 * A refusal, replay or mismatch rolls the first statement back: nothing stays behind, and a
 * process that dies in between leaves nothing either (its transaction dies with its connection).
 */
export function notificationOperations(pool: Pool, sql: Sql, usageShards: number): NotificationOperations {
  const { t, statement } = sql;
  // Browsers are locked in the order of their ids, the same in every send, so sends to one
  // recipient queue rather than deadlock. The row lock re-reads `connected` on the latest
  // version: a browser disconnected meanwhile gets no attempt.
  const raiseSeqs = `
    target AS (
      SELECT id FROM ${t('browsers')}
       WHERE project_id = $1 AND recipient = $2 AND connected {claimed}
       ORDER BY id
       FOR NO KEY UPDATE
    ), raised AS (
      UPDATE ${t('browsers')} AS b SET last_seq = b.last_seq + 1
        FROM target WHERE b.id = target.id
      RETURNING b.id, b.last_seq AS seq
    )`;
  const targets = statement(
    'send_targets',
    `WITH ${raiseSeqs.replace('{claimed}', '')} SELECT id, seq FROM raised ORDER BY id`,
  );
  // An unexpired result is kept as it was (the upsert only locks it) and returned; an expired
  // one, or none, becomes this send's claim.
  const claimAndTargets = statement(
    'send_claim_targets',
    `WITH claim AS (
       INSERT INTO ${t('idempotency_keys')} AS k
         (project_id, key, fingerprint, response_status, response_body, created_at, expires_at)
       VALUES ($1, $3, $4, ${CLAIMED}, '', $5, $6)
       ON CONFLICT (project_id, key) DO UPDATE SET
         fingerprint = CASE WHEN k.expires_at <= $5 THEN excluded.fingerprint ELSE k.fingerprint END,
         response_status = CASE WHEN k.expires_at <= $5 THEN ${CLAIMED} ELSE k.response_status END,
         response_body = CASE WHEN k.expires_at <= $5 THEN '' ELSE k.response_body END,
         created_at = CASE WHEN k.expires_at <= $5 THEN excluded.created_at ELSE k.created_at END,
         expires_at = CASE WHEN k.expires_at <= $5 THEN excluded.expires_at ELSE k.expires_at END
       RETURNING fingerprint, response_status, response_body
     ), ${raiseSeqs.replace('{claimed}', `AND (SELECT response_status FROM claim) = ${CLAIMED}`)}
     SELECT NULL AS id, NULL::int8 AS seq, fingerprint, response_status, response_body
       FROM claim WHERE response_status <> ${CLAIMED}
     UNION ALL
     SELECT id, seq, NULL, NULL, NULL FROM raised`,
  );
  const record = statement(
    'send_record',
    `WITH notification AS (
       INSERT INTO ${t('notifications')}
         (id, project_id, mode, recipient, title, body, url, icon, tag, data, ttl, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ), attempt AS (
       INSERT INTO ${t('attempts')}
         (id, notification_id, position, browser_id, seq, status, final, accepted_at, expires_at)
       SELECT a.id, $1, a.position, a.browser_id, a.seq, 'accepted', $3 = 'test', $12, $13
         FROM unnest($14::text[], $15::text[], $16::int8[]) WITH ORDINALITY AS a(id, browser_id, seq, position)
     ), usage AS (
       INSERT INTO ${t('usage_days')} AS u (project_id, day, shard, notifications, attempts)
       SELECT $2, $17, pg_backend_pid() % $18, 1, cardinality($14::text[]) WHERE $3 = 'live'
       ON CONFLICT (project_id, day, shard) DO UPDATE SET
         notifications = u.notifications + 1,
         attempts = u.attempts + excluded.attempts
     )
     UPDATE ${t('idempotency_keys')} SET response_status = $20, response_body = $21
      WHERE project_id = $2 AND key = $19`,
  );
  const selectNotification = statement(
    'select_notification',
    `SELECT ${NOTIFICATION} FROM ${t('notifications')} WHERE id = $1 AND project_id = $2`,
  );
  const selectAttempts = statement(
    'select_attempts',
    `SELECT ${ATTEMPT} FROM ${t('attempts')} WHERE notification_id = $1 ORDER BY position`,
  );
  const selectUsage = statement(
    'select_usage',
    `SELECT day, sum(notifications) AS notifications, sum(attempts) AS attempts FROM ${t('usage_days')}
      WHERE project_id = $1 AND day BETWEEN $2 AND $3
      GROUP BY day ORDER BY day`,
  );

  /** The send's first statement: a stored result, or the browsers and their new seqs. */
  function claim(client: PoolClient, input: CreateNotificationInput): Promise<ClaimRow[]> {
    const { notification, idempotency } = input;
    if (idempotency === null) return run<ClaimRow>(client, targets, [notification.projectId, notification.recipient]);
    return run<ClaimRow>(client, claimAndTargets, [
      notification.projectId,
      notification.recipient,
      idempotency.key,
      idempotency.fingerprint,
      notification.createdAt,
      idempotency.expiresAt,
    ]);
  }

  async function create(client: PoolClient, input: CreateNotificationInput): Promise<Ended<CreateNotificationResult>> {
    const { notification, idempotency } = input;
    const rows = await claim(client, input);
    const stored = rows.find((row) => row.id === null);
    if (stored && idempotency) {
      const outcome = idempotencyOutcome(stored as IdempotencyRow, idempotency.fingerprint);
      if (outcome.kind === 'mismatch') return rollBack(outcome);
      return rollBack({ kind: 'replay', response: { status: outcome.status, body: outcome.body } });
    }
    if (rows.length === 0) return rollBack({ kind: 'no-connected-browser' });
    const attempts = rows.map((row) => newAttempt(input, row));
    const created = { notification, attempts };
    const response = input.render(created);
    const recorded = run(
      client,
      record,
      recordValues(notification, attempts, idempotency?.key ?? null, response, usageShards),
    );
    return commitWith(client, recorded, { kind: 'created', created, response });
  }

  return {
    async createNotification(input) {
      return transaction(pool, (client) => create(client, input));
    },
    async getNotification({ projectId, id }) {
      // Two statements in one exchange; the attempts are read after the notification, so they
      // are at least as fresh as it is.
      const [found] = await run<NotificationRecord>(pool, selectNotification, [id, projectId]);
      if (!found) return null;
      const attempts = await run<AttemptRecord>(pool, selectAttempts, [id]);
      return { notification: found, attempts };
    },
    async getUsage({ projectId, fromDay, toDay }) {
      return run<UsageDay>(pool, selectUsage, [projectId, fromDay, toDay]);
    },
  };
}

function newAttempt(input: CreateNotificationInput, target: TargetRow): AttemptRecord {
  const { notification } = input;
  return {
    id: input.newAttemptId(),
    notificationId: notification.id,
    browserId: target.id,
    seq: target.seq,
    status: 'accepted',
    // Test mode records its attempts final at once: nothing will ever be sent for them.
    final: notification.mode === 'test',
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
}

function recordValues(
  notification: NotificationRecord,
  attempts: AttemptRecord[],
  idempotencyKey: string | null,
  response: { status: number; body: string },
  usageShards: number,
): unknown[] {
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
    attempts.map((attempt) => attempt.id),
    attempts.map((attempt) => attempt.browserId),
    attempts.map((attempt) => attempt.seq),
    utcDay(notification.createdAt),
    usageShards,
    idempotencyKey,
    response.status,
    response.body,
  ];
}
