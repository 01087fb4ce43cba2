import type { AttemptRecord, NotificationRecord, NotificationWithAttempts } from '@tidings/core';
import {
  acceptedAttempt,
  type CreateNotificationInput,
  type CreateNotificationResult,
  type NewJob,
  notificationColumnValues,
  type StoredResponse,
  utcDay,
} from '@tidings/core/store';
import type { Sql, Statement } from './db.js';

/**
 * The status the claim of a key holds inside its send's transaction until the result replaces
 * it. Never committed, so never read: stored statuses are those of successful responses.
 */
export const CLAIMED = 0;

/**
 * Every statement of a send, in one place: those of a send alone, which a send through an
 * application's transaction runs too (see {@link writeSend}), and those of a group of sends
 * (send-batch.ts). The two shapes differ on purpose: a send alone takes scalars, so PostgreSQL
 * keeps its plan, where a group's statements take arrays (packages/store-postgres/README.md,
 * _Plans_); both write the same rows.
 */
export interface SendStatements {
  /** A recipient's connected browsers, by id. */
  connectedBrowsers: Statement;
  /** The claim of a key with the read of the browsers (or the key's stored result). */
  claimAndBrowsers: Statement;
  /** Records a notification for a list of browsers. */
  record: Statement;
  /** Records a notification for one browser. */
  recordOne: Statement;
  /** Records a notification kept for the inbox of a recipient with no browser: no attempt. */
  recordKept: Statement;
  /** The result under a claimed key. */
  storeResult: Statement;
  /** The claim of a send that recorded nothing, removed: the key stays free. */
  dropClaim: Statement;
  group: {
    claimKeys: Statement;
    connectedBrowsers: Statement;
    record: Statement;
    /** The two statements above in one, with the attempts' ids made beforehand: plan kept, or made each run. */
    recordAtOnce: { kept: Statement; planned: Statement };
    settleKeys: Statement;
  };
}

/** Makes the statements of a send on a store's schema. */
export function sendStatements(sql: Sql): SendStatements {
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
  // A send kept for the inbox (docs/inbox.md#an-inbox-for-users-who-are-away): the notification
  // (whose trigger makes the item) and the live usage, with no attempt. The parameters are those
  // of the statements above, so that one list of values serves them all.
  const recordKept = statement(
    'send_record_kept',
    `WITH notification AS (
       INSERT INTO ${t('notifications')}
         (id, project_id, mode, recipient, title, body, url, icon, tag, data, ttl, created_at, expires_at,
          api_key_id, request_id, idempotency_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $18, $19, $20)
     ), usage AS (
       INSERT INTO ${t('usage_days')} AS u (project_id, day, shard, notifications, attempts)
       SELECT $2, $16, pg_backend_pid() % $17, 1, 0 WHERE $3 = 'live'
       ON CONFLICT (project_id, day, shard) DO UPDATE SET notifications = u.notifications + 1
     )
     SELECT $14::text AS browser_id, $15::text AS attempt_id WHERE false`,
  );
  const storeResult = statement(
    'send_result',
    `UPDATE ${t('idempotency_keys')} SET response_status = $3, response_body = $4 WHERE project_id = $1 AND key = $2`,
  );
  const dropClaim = statement(
    'send_drop_claim',
    `DELETE FROM ${t('idempotency_keys')} WHERE project_id = $1 AND key = $2 AND response_status = ${CLAIMED}`,
  );
  const claimKeys = statement(
    'group_claim',
    `INSERT INTO ${t('idempotency_keys')} AS k
       (project_id, key, fingerprint, response_status, response_body, created_at, expires_at)
     SELECT c.project_id, c.key, c.fingerprint, ${CLAIMED}, '', c.created_at, c.expires_at
       FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::int8[])
         AS c(project_id, key, fingerprint, created_at, expires_at)
      ORDER BY c.project_id, c.key
     ON CONFLICT (project_id, key) DO UPDATE SET
       fingerprint = CASE WHEN k.expires_at <= excluded.created_at THEN excluded.fingerprint ELSE k.fingerprint END,
       response_status = CASE WHEN k.expires_at <= excluded.created_at THEN ${CLAIMED} ELSE k.response_status END,
       response_body = CASE WHEN k.expires_at <= excluded.created_at THEN '' ELSE k.response_body END,
       created_at = CASE WHEN k.expires_at <= excluded.created_at THEN excluded.created_at ELSE k.created_at END,
       expires_at = CASE WHEN k.expires_at <= excluded.created_at THEN excluded.expires_at ELSE k.expires_at END
     RETURNING project_id, key, fingerprint, response_status, response_body`,
  );
  const groupBrowsers = statement(
    'group_browsers',
    `SELECT b.project_id, b.recipient, b.id
       FROM unnest($1::text[], $2::text[]) AS r(project_id, recipient)
       JOIN ${t('browsers')} AS b ON b.project_id = r.project_id AND b.recipient = r.recipient
      WHERE b.connected
      ORDER BY b.id`,
    { planEachRun: true },
  );
  // As the recording statement of a send alone (above), for many: each browser is
  // raised once, by its count of attempts, and its attempts take the numbers in send order.
  const groupRecord = statement(
    'group_record',
    `WITH ${NOTIFICATION_ROWS}, p AS (
       SELECT * FROM unnest($18::text[], $19::text[], $20::text[], $21::int4[], $22::int4[])
         AS p(attempt_id, notification_id, browser_id, position, ord)
     ), target AS (
       SELECT id FROM ${t('browsers')} WHERE id = ANY($23::text[]) AND connected ORDER BY id FOR NO KEY UPDATE
     ), counts AS (
       SELECT p.browser_id, count(*) AS n FROM p JOIN target ON target.id = p.browser_id GROUP BY p.browser_id
     ), ${recordingWrites(t, 'p', '$24')}
     SELECT attempt_id, seq FROM planned`,
    { planEachRun: true },
  );
  // The two statements above in one, for a group whose attempt ids were made beforehand: each
  // send brings as many ids as its recipient was last seen with browsers and two more, or 16
  // for a recipient not seen yet. The statement reads and locks the recipients' connected
  // browsers itself; should a send have more browsers than ids, it writes nothing and answers
  // one row with `short` set, and the group is recorded in two statements instead.
  //
  // Unlike the statements above, it keeps its plan once the browsers' table is large enough
  // (see keptPlanReady): it reads that one table, by a recipient's index and by primary key, and
  // joins nothing else but its own lists. PostgreSQL weighs a plan kept for lists of any length
  // (it assumes 10 items) against those made for each group, and keeps it. Planned at every run,
  // its parsing and planning were more than half of PostgreSQL's CPU per send at 1,000 sends a
  // second (packages/store-postgres/README.md, _Plans_).
  const recordAtOnceText = `WITH ${NOTIFICATION_ROWS}, ids AS (
       SELECT * FROM unnest($18::int4[], $19::int4[], $20::text[]) AS i(ord, position, attempt_id)
     ), target AS (
       SELECT b.id, b.project_id, b.recipient FROM ${t('browsers')} AS b
        WHERE (b.project_id, b.recipient) IN (SELECT project_id, recipient FROM n) AND b.connected
        ORDER BY b.id FOR NO KEY UPDATE
     ), p AS (
       SELECT n.ord, n.id AS notification_id, target.id AS browser_id,
              row_number() OVER (PARTITION BY n.ord ORDER BY target.id) AS position
         FROM n JOIN target ON target.project_id = n.project_id AND target.recipient = n.recipient
     ), named AS (
       SELECT p.ord, p.notification_id, p.browser_id, p.position, ids.attempt_id
         FROM p LEFT JOIN ids ON ids.ord = p.ord AND ids.position = p.position
     ), short AS (
       SELECT EXISTS (SELECT 1 FROM named WHERE attempt_id IS NULL) AS short
     ), counts AS (
       SELECT named.browser_id, count(*) AS n FROM named WHERE NOT (SELECT short FROM short) GROUP BY named.browser_id
     ), ${recordingWrites(t, 'named', '$21')}
     SELECT attempt_id, notification_id, browser_id, position::int4, seq, false AS short FROM planned
     UNION ALL
     SELECT NULL, NULL, NULL, NULL, NULL, true FROM short WHERE short`;
  const recordAtOnce = {
    kept: statement('group_send', recordAtOnceText),
    planned: statement('group_send', recordAtOnceText, { planEachRun: true }),
  };
  // The results of the created sends under their keys; the claims of sends that recorded
  // nothing (no connected browser) removed, as a send alone rolls its claim back.
  const settleKeys = statement(
    'group_settle',
    `WITH stored AS (
       UPDATE ${t('idempotency_keys')} AS k SET response_status = r.status, response_body = r.body
         FROM unnest($1::text[], $2::text[], $3::int4[], $4::text[]) AS r(project_id, key, status, body)
        WHERE k.project_id = r.project_id AND k.key = r.key
     ), dropped AS (
       DELETE FROM ${t('idempotency_keys')} AS k USING unnest($5::text[], $6::text[]) AS d(project_id, key)
        WHERE k.project_id = d.project_id AND k.key = d.key
     )
     SELECT 1`,
    { planEachRun: true },
  );
  return {
    connectedBrowsers,
    claimAndBrowsers,
    record,
    recordOne,
    recordKept,
    storeResult,
    dropClaim,
    group: { claimKeys, connectedBrowsers: groupBrowsers, record: groupRecord, recordAtOnce, settleKeys },
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
    ...notificationColumnValues(notification),
    browserIds,
    attemptIds,
    utcDay(notification.createdAt),
    usageShards,
    notification.apiKeyId,
    notification.requestId,
    notification.idempotencyKey,
  ];
}

/**
 * The writing half of both group recording statements, after a `counts` CTE (attempts per
 * browser, empty to write nothing) and a `source` CTE of the attempts (attempt_id,
 * notification_id, browser_id, position, ord) next to `n`, the notifications: each browser's
 * sequence raised once by its count under its row lock, its attempts numbered in send order
 * (`planned`), then every notification that got an attempt, the attempts, and the live usage on
 * the shard of `shardParam`'s modulus.
 */
function recordingWrites(t: Sql['t'], source: 'p' | 'named', shardParam: string): string {
  return `raised AS (
       UPDATE ${t('browsers')} AS b SET last_seq = b.last_seq + counts.n FROM counts WHERE b.id = counts.browser_id
       RETURNING b.id, b.last_seq - counts.n AS base
     ), planned AS (
       SELECT ${source}.attempt_id, ${source}.notification_id, ${source}.browser_id, ${source}.position,
              raised.base + row_number() OVER (PARTITION BY ${source}.browser_id ORDER BY ${source}.ord) AS seq
         FROM ${source} JOIN raised ON raised.id = ${source}.browser_id
     ), notification AS (
       INSERT INTO ${t('notifications')}
         (id, project_id, mode, recipient, title, body, url, icon, tag, data, ttl, created_at, expires_at,
          api_key_id, request_id, idempotency_key)
       SELECT n.id, n.project_id, n.mode, n.recipient, n.title, n.body, n.url, n.icon, n.tag, n.data::json, n.ttl,
              n.created_at, n.expires_at, n.api_key_id, n.request_id, n.idempotency_key
         FROM n WHERE EXISTS (SELECT 1 FROM planned WHERE planned.notification_id = n.id)
     ), attempt AS (
       INSERT INTO ${t('attempts')}
         (id, notification_id, position, browser_id, seq, status, final, accepted_at, expires_at)
       SELECT planned.attempt_id, planned.notification_id, planned.position, planned.browser_id, planned.seq,
              'accepted', n.mode = 'test', n.created_at, n.expires_at
         FROM planned JOIN n ON n.id = planned.notification_id
     ), usage AS (
       INSERT INTO ${t('usage_days')} AS u (project_id, day, shard, notifications, attempts)
       SELECT n.project_id, n.day, pg_backend_pid() % ${shardParam}, count(DISTINCT n.id), count(*)
         FROM planned JOIN n ON n.id = planned.notification_id
        WHERE n.mode = 'live'
        GROUP BY n.project_id, n.day
       ON CONFLICT (project_id, day, shard) DO UPDATE SET
         notifications = u.notifications + excluded.notifications,
         attempts = u.attempts + excluded.attempts
     )`;
}

/**
 * The `n` CTE of both group recording statements: the notifications from the seventeen arrays of
 * {@link notificationColumns} ($1–$17), each with its place in the group (`ord`, from 1).
 */
const NOTIFICATION_ROWS = `n AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                            $8::text[], $9::text[], $10::text[], $11::int4[], $12::int8[], $13::int8[], $14::text[],
                            $15::text[], $16::text[], $17::text[])
                     WITH ORDINALITY
         AS n(id, project_id, mode, recipient, title, body, url, icon, tag, data, ttl, created_at, expires_at, day,
              api_key_id, request_id, idempotency_key, ord)
     )`;

/** The seventeen notification columns the recording statements take first, as arrays ({@link NOTIFICATION_ROWS}). */
export function notificationColumns(notifications: NotificationRecord[]): unknown[] {
  const column = <K extends keyof NotificationRecord>(name: K) => notifications.map((n) => n[name]);
  return [
    column('id'),
    column('projectId'),
    column('mode'),
    column('recipient'),
    column('title'),
    column('body'),
    column('url'),
    column('icon'),
    column('tag'),
    notifications.map((n) => (n.data === null ? null : JSON.stringify(n.data))),
    column('ttl'),
    column('createdAt'),
    column('expiresAt'),
    notifications.map((n) => utcDay(n.createdAt)),
    column('apiKeyId'),
    column('requestId'),
    column('idempotencyKey'),
  ];
}

/** Runs one of the store's statements on the connection a send is written on, and answers its rows. */
export type RunStatement = <Row extends object>(statement: Statement, values: unknown[]) => Promise<Row[]>;

/** A send refused: a replay, a mismatch or no connected browser; nothing it wrote is to stay but a claim to drop. */
type Refused = Exclude<CreateNotificationResult, { kind: 'created' }>;

/**
 * What {@link writeSend} wrote of a send alone: refused, or created, with what is still to be
 * written in its transaction before the commit: the result under its key (the values of
 * `storeResult`) and its jobs.
 */
export type WrittenSend =
  | { kind: 'refused'; outcome: Refused }
  | {
      kind: 'created';
      outcome: Extract<CreateNotificationResult, { kind: 'created' }>;
      storeResult: unknown[] | null;
      jobs: NewJob[];
    };

/** A row of the claim: a stored result under the key, or (id set) a connected browser. */
interface ClaimRow {
  id: string | null;
  fingerprint: string | null;
  response_status: number | string | null;
  response_body: string | null;
}

/** An attempt the recording statement wrote, with the sequence number its browser gave it. */
interface RecordedRow {
  attempt_id: string;
  browser_id: string;
  seq: number | string;
}

/**
 * Writes a send alone, on the store's own connection or in an application's transaction: the
 * claim of its key with the read of the browsers (a stored result under the key: a replay or a
 * mismatch), or the read alone; then the recording statement, which raises each browser's
 * sequence under its row lock and writes the notification, its attempts and the live usage, all
 * or nothing. What is left (the result under the key, the jobs) is for the caller to send with
 * its commit. Columns are read whatever types the connection's library gives them.
 */
export async function writeSend(
  runStatement: RunStatement,
  statements: SendStatements,
  input: CreateNotificationInput,
  usageShards: number,
): Promise<WrittenSend> {
  const { notification, idempotency } = input;
  const refused = (outcome: Refused): WrittenSend => ({ kind: 'refused', outcome });
  let browserIds: string[];
  if (idempotency === null) {
    const rows = await runStatement<{ id: string }>(statements.connectedBrowsers, [
      notification.projectId,
      notification.recipient,
    ]);
    browserIds = rows.map((row) => row.id);
  } else {
    // The claim waits for another transaction holding the key, then finds its result or the key free.
    const rows = await runStatement<ClaimRow>(statements.claimAndBrowsers, [
      notification.projectId,
      notification.recipient,
      idempotency.key,
      idempotency.fingerprint,
      notification.createdAt,
      idempotency.expiresAt,
    ]);
    const stored = rows.find((row) => row.id === null);
    if (stored) {
      // An unexpired result: the claim only locked it, and nothing else was written.
      if (stored.fingerprint !== idempotency.fingerprint) return refused({ kind: 'mismatch' });
      const response: StoredResponse = { status: Number(stored.response_status), body: stored.response_body ?? '' };
      return refused({ kind: 'replay', response });
    }
    browserIds = rows.map((row) => row.id!).sort();
  }
  const keep = async () => {
    await runStatement(statements.recordKept, recordValues(notification, '', '', usageShards));
    return created({ notification, attempts: [] });
  };
  if (browserIds.length === 0) return input.keepForInbox === true ? keep() : refused({ kind: 'no-connected-browser' });
  const attemptIds = browserIds.map(() => input.newAttemptId());
  const rows =
    browserIds.length === 1
      ? await runStatement<RecordedRow>(
          statements.recordOne,
          recordValues(notification, browserIds[0]!, attemptIds[0]!, usageShards),
        )
      : await runStatement<RecordedRow>(
          statements.record,
          recordValues(notification, browserIds, attemptIds, usageShards),
        );
  // None: every browser disconnected since the read, and the statement wrote nothing.
  if (rows.length === 0) return input.keepForInbox === true ? keep() : refused({ kind: 'no-connected-browser' });
  const attempts = rows.map(
    (row): AttemptRecord => acceptedAttempt(notification, row.attempt_id, row.browser_id, Number(row.seq)),
  );
  return created({ notification, attempts });

  function created(recorded: NotificationWithAttempts): WrittenSend {
    const response = input.render(recorded);
    return {
      kind: 'created',
      outcome: { kind: 'created', created: recorded, response },
      storeResult:
        idempotency === null ? null : [notification.projectId, idempotency.key, response.status, response.body],
      jobs: input.jobs ? input.jobs(recorded) : [],
    };
  }
}
