import type { AttemptRecord, NotificationRecord, UsageBreakdownDay, UsageDay } from '@tidings/core';
import {
  acceptedAttempt,
  type CreateNotificationInput,
  type CreateNotificationResult,
  type IdempotencyInput,
  idTimeFloor,
  type NotificationStore,
  type UsageStore,
  utcDay,
} from '@tidings/core/store';
import type { Pool, PoolClient } from 'pg';
import { ATTEMPTS_JSON, NOTIFICATION } from './columns.js';
import { commitWith, type Ended, type Queryable, rollBack, run, type Sql, type Statement, transaction } from './db.js';
import { createGroup } from './group.js';
import { type IdempotencyRow, idempotencyOutcome } from './idempotency.js';
import type { InsertJobs } from './jobs.js';
import { batchOperations, CLAIMED, MAX_GROUP, PARALLEL_GROUPS } from './send-batch.js';

type NotificationOperations = NotificationStore & UsageStore;

/** The statements of a send, which a send through an application's transaction runs as text too. */
export interface SendStatements {
  connectedBrowsers: Statement;
  claimAndBrowsers: Statement;
  record: Statement;
  recordOne: Statement;
  storeResult: Statement;
}

/** A row of the claim: a stored result under the key, or (id set) a connected browser. */
interface ClaimRow extends Partial<IdempotencyRow> {
  id: string | null;
}

/** An attempt the recording statement wrote, with the sequence number its browser gave it. */
interface RecordedRow {
  attempt_id: string;
  browser_id: string;
  seq: number;
}

/**
 * Notifications, their attempts, and the usage they count.
 *
 * A send without an idempotency key is two statements and no explicit transaction: a read of the
 * recipient's connected browsers, then one statement (atomic on its own) that raises each
 * browser's sequence under its row lock and inserts the notification, its attempts and the live
 * usage. The browser's row is locked only from that statement to its commit: sends to one
 * browser queue there, and nowhere else.
 *
 * A send with a key is one transaction: the claim (an upsert on the key's primary key: a
 * concurrent send with the same key waits until this one commits or rolls back, then finds its
 * result, or the key free) with the read of the browsers; the same recording statement; then the
 * result under the key, sent together with COMMIT. A replay, mismatch or refusal rolls back:
 * nothing stays behind, and a process that dies in between leaves nothing either (its
 * transaction dies with its connection).
 *
 * Concurrent sends are group-committed: the sends made in one turn of the event loop, while
 * earlier groups are in flight, are recorded together (see {@link batchOperations}), so that
 * sends to one browser no longer queue one commit each on its row lock. A send alone in its
 * group takes the path above.
 */
export function notificationOperations(
  pool: Pool,
  sql: Sql,
  usageShards: number,
  insertJobs: InsertJobs,
): NotificationOperations & { sendStatements: SendStatements } {
  const { t, statement } = sql;
  const connectedBrowsers = statement(
    'send_browsers',
    `SELECT id FROM ${t('browsers')} WHERE project_id = $1 AND recipient = $2 AND connected ORDER BY id`,
  );
  // An unexpired result is kept as it was (the upsert only locks it) and returned; an expired
  // one, or none, becomes this send's claim.
  const claimAndBrowsers = statement(
    'send_claim',
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
     )
     SELECT NULL AS id, fingerprint, response_status, response_body FROM claim WHERE response_status <> ${CLAIMED}
     UNION ALL
     SELECT id, NULL, NULL, NULL FROM ${t('browsers')}
      WHERE project_id = $1 AND recipient = $2 AND connected AND (SELECT response_status FROM claim) = ${CLAIMED}`,
  );
  // What a recording statement does once `planned` holds the attempts it may write (each with
  // its browser's raised sequence): the notification, the attempts and the live usage, all or
  // nothing, and the attempts in their order.
  const recordPlanned = `notification AS (
       INSERT INTO ${t('notifications')}
         (id, project_id, mode, recipient, title, body, url, icon, tag, data, ttl, created_at, expires_at,
          api_key_id, request_id, idempotency_key)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $18, $19, $20 WHERE EXISTS (SELECT 1 FROM raised)
     ), attempt AS (
       INSERT INTO ${t('attempts')}
         (id, notification_id, position, browser_id, seq, status, final, accepted_at, expires_at)
       SELECT attempt_id, $1, position, browser_id, seq, 'accepted', $3 = 'test', $12, $13 FROM planned
     ), usage AS (
       INSERT INTO ${t('usage_days')} AS u (project_id, day, shard, notifications, attempts)
       SELECT $2, $16, pg_backend_pid() % $17, 1, count(*) FROM planned HAVING count(*) > 0 AND $3 = 'live'
       ON CONFLICT (project_id, day, shard) DO UPDATE SET
         notifications = u.notifications + 1,
         attempts = u.attempts + excluded.attempts
     )
     SELECT attempt_id, browser_id, seq FROM planned ORDER BY position`;
  // Browsers are locked in the order of their ids, the same in every send, so sends to one
  // recipient queue rather than deadlock. The row lock re-reads `connected` on the latest
  // version: a browser disconnected since the read gets no attempt, and when none is left the
  // statement writes nothing at all.
  const record = statement(
    'send_record',
    `WITH target AS (
       SELECT id FROM ${t('browsers')} WHERE id = ANY($14::text[]) AND connected ORDER BY id FOR NO KEY UPDATE
     ), raised AS (
       UPDATE ${t('browsers')} AS b SET last_seq = b.last_seq + 1 FROM target WHERE b.id = target.id
       RETURNING b.id, b.last_seq AS seq
     ), planned AS (
       SELECT p.attempt_id, p.browser_id, p.position, raised.seq
         FROM unnest($15::text[], $14::text[]) WITH ORDINALITY AS p(attempt_id, browser_id, position)
         JOIN raised ON raised.id = p.browser_id
     ), ${recordPlanned}`,
    { planEachRun: true },
  );
  // The same for a recipient with one browser, the usual case: with no list among its
  // parameters PostgreSQL keeps its plan, where the statement above is planned at every run
  // (planning was more than half of its time on the server). The UPDATE takes the browser's row
  // lock and re-reads `connected` on its latest version, as the lock above does.
  const recordOne = statement(
    'send_record_one',
    `WITH raised AS (
       UPDATE ${t('browsers')} SET last_seq = last_seq + 1 WHERE id = $14::text AND connected
       RETURNING id, last_seq AS seq
     ), planned AS (
       SELECT $15::text AS attempt_id, id AS browser_id, 1::int8 AS position, seq FROM raised
     ), ${recordPlanned}`,
  );
  const storeResult = statement(
    'send_result',
    `UPDATE ${t('idempotency_keys')} SET response_status = $3, response_body = $4 WHERE project_id = $1 AND key = $2`,
  );
  const selectNotification = statement(
    'select_notification',
    `SELECT ${NOTIFICATION}, ${ATTEMPTS_JSON.replace('{attempts}', t('attempts'))} AS attempts
       FROM ${t('notifications')} AS n WHERE n.id = $1 AND n.project_id = $2`,
  );
  const selectUsage = statement(
    'select_usage',
    `SELECT day, sum(notifications) AS notifications, sum(attempts) AS attempts FROM ${t('usage_days')}
      WHERE project_id = $1 AND day BETWEEN $2 AND $3
      GROUP BY day ORDER BY day`,
  );

  // The ids' range (ids sort by creation time) lets the primary key serve the read.
  const selectUsageBreakdown = statement(
    'select_usage_breakdown',
    `SELECT to_char(to_timestamp(n.created_at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, n.mode,
            count(DISTINCT n.id)::int4 AS notifications, count(a.id)::int4 AS attempts,
            count(a.sent_at)::int4 AS sent, count(a.delivered_at)::int4 AS delivered
       FROM ${t('notifications')} AS n LEFT JOIN ${t('attempts')} AS a ON a.notification_id = n.id
      WHERE n.id >= $4 AND n.id < $5 AND n.project_id = $1 AND n.created_at >= $2 AND n.created_at < $3
      GROUP BY 1, n.mode ORDER BY 1, n.mode`,
  );

  /** Records the notification for these browsers; the attempts it wrote, in order (none: nothing written). */
  async function recordSend(db: Queryable, input: CreateNotificationInput, browserIds: string[]) {
    const { notification } = input;
    const attemptIds = browserIds.map(() => input.newAttemptId());
    const rows =
      browserIds.length === 1
        ? await run<RecordedRow>(db, recordOne, recordValues(notification, browserIds[0]!, attemptIds[0]!, usageShards))
        : await run<RecordedRow>(db, record, recordValues(notification, browserIds, attemptIds, usageShards));
    return rows.map((row) => acceptedAttempt(notification, row.attempt_id, row.browser_id, row.seq));
  }

  async function sendWithoutKey(input: CreateNotificationInput): Promise<CreateNotificationResult> {
    const { notification } = input;
    const browsers = await run<{ id: string }>(pool, connectedBrowsers, [
      notification.projectId,
      notification.recipient,
    ]);
    const attempts =
      browsers.length === 0
        ? []
        : await recordSend(
            pool,
            input,
            browsers.map((browser) => browser.id),
          );
    if (attempts.length === 0) return { kind: 'no-connected-browser' };
    const created = { notification, attempts };
    return { kind: 'created', created, response: input.render(created) };
  }

  async function sendWithKey(
    client: PoolClient,
    input: CreateNotificationInput,
    idempotency: IdempotencyInput,
  ): Promise<CreateNotificationResult | Ended<CreateNotificationResult>> {
    const { notification } = input;
    const rows = await run<ClaimRow>(client, claimAndBrowsers, [
      notification.projectId,
      notification.recipient,
      idempotency.key,
      idempotency.fingerprint,
      notification.createdAt,
      idempotency.expiresAt,
    ]);
    const stored = rows.find((row) => row.id === null);
    if (stored) {
      const outcome = idempotencyOutcome(stored as IdempotencyRow, idempotency.fingerprint);
      if (outcome.kind === 'mismatch') return rollBack(outcome);
      return rollBack({ kind: 'replay', response: { status: outcome.status, body: outcome.body } });
    }
    const browserIds = rows.map((row) => row.id!).sort();
    const attempts = browserIds.length === 0 ? [] : await recordSend(client, input, browserIds);
    if (attempts.length === 0) return rollBack({ kind: 'no-connected-browser' });
    const created = { notification, attempts };
    const response = input.render(created);
    const stores = () =>
      run(client, storeResult, [notification.projectId, idempotency.key, response.status, response.body]);
    const jobs = input.jobs?.(created);
    const enqueues = jobs ? () => insertJobs(client, jobs, notification.createdAt) : null;
    return commitWith(client, [stores, enqueues], { kind: 'created', created, response });
  }

  /**
   * A send without a key that enqueues jobs: the send's statements, then its jobs with COMMIT, in
   * one transaction, so that the jobs commit exactly when the send does.
   */
  async function sendWithJobs(
    client: PoolClient,
    input: CreateNotificationInput,
  ): Promise<CreateNotificationResult | Ended<CreateNotificationResult>> {
    const { notification } = input;
    const browsers = await run<{ id: string }>(client, connectedBrowsers, [
      notification.projectId,
      notification.recipient,
    ]);
    const browserIds = browsers.map((browser) => browser.id);
    const attempts = browserIds.length === 0 ? [] : await recordSend(client, input, browserIds);
    if (attempts.length === 0) return rollBack({ kind: 'no-connected-browser' });
    const created = { notification, attempts };
    const response = input.render(created);
    const jobs = input.jobs!(created);
    return commitWith(client, [() => insertJobs(client, jobs, notification.createdAt)], {
      kind: 'created',
      created,
      response,
    });
  }

  const sendAlone = (input: CreateNotificationInput): Promise<CreateNotificationResult> => {
    const { idempotency } = input;
    if (idempotency === null && input.jobs) return transaction(pool, (client) => sendWithJobs(client, input));
    if (idempotency === null) return sendWithoutKey(input);
    return transaction(pool, (client) => sendWithKey(client, input, idempotency));
  };
  const sendTogether = batchOperations(pool, sql, usageShards, insertJobs);
  const sends = createGroup<CreateNotificationInput, CreateNotificationResult>({
    async runGroup(inputs) {
      // Alone, a send takes its own prepared statements. While the group's recording statement
      // is planned at every run, it cost a send alone more than the round trip it saves
      // (bench/NOTES.md, "One statement per group of sends"); with its plan kept, it answered
      // no sooner and cost PostgreSQL more CPU than these two (packages/store-postgres/README.md,
      // _Plans_).
      if (inputs.length === 1) return [await sendAlone(inputs[0]!)];
      try {
        return await sendTogether(inputs);
      } catch {
        // The group rolled back as a whole. Alone, each send fails or succeeds on its own (a
        // send whose group did commit but whose answer was lost finds its key's result, or fails
        // on its notification's id: it is never recorded twice).
        return inputs.map((input) => sendAlone(input));
      }
    },
    maxItems: MAX_GROUP,
    parallel: PARALLEL_GROUPS,
    // Two claims of one key in one statement would fail it: the second waits for a later group
    // and finds the first's result.
    mayJoin: (input, taken) =>
      input.idempotency === null ||
      !taken.some(
        (other) =>
          other.idempotency?.key === input.idempotency!.key &&
          other.notification.projectId === input.notification.projectId,
      ),
  });

  return {
    sendStatements: { connectedBrowsers, claimAndBrowsers, record, recordOne, storeResult },
    createNotification: (input) => sends.run(input),
    async getNotification({ projectId, id }) {
      // One statement: the notification and its attempts from one snapshot.
      const [found] = await run<NotificationRecord & { attempts: AttemptRecord[] }>(pool, selectNotification, [
        id,
        projectId,
      ]);
      if (!found) return null;
      const { attempts, ...notification } = found;
      return { notification, attempts };
    },
    async getUsage({ projectId, fromDay, toDay }) {
      return run<UsageDay>(pool, selectUsage, [projectId, fromDay, toDay]);
    },
    async getUsageBreakdown({ projectId, from, to }) {
      return run<UsageBreakdownDay>(pool, selectUsageBreakdown, [
        projectId,
        from,
        to,
        idTimeFloor('ntf', from),
        idTimeFloor('ntf', to),
      ]);
    },
  };
}

/** The recording statements' parameters: one browser and attempt id, or a list of each. */
export function recordValues(
  notification: NotificationRecord,
  browserIds: string[] | string,
  attemptIds: string[] | string,
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
    browserIds,
    attemptIds,
    utcDay(notification.createdAt),
    usageShards,
    notification.apiKeyId,
    notification.requestId,
    notification.idempotencyKey,
  ];
}
