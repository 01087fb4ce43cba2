import type { AttemptRecord, NotificationRecord } from '@tidings/core';
import type { CreateNotificationInput, CreateNotificationResult, NewJob } from '@tidings/core/store';
import { acceptedAttempt, utcDay } from '@tidings/core/store';
import type { Pool } from 'pg';
import { commitWith, keptPlanReady, type Queryable, run, type Sql, transaction } from './db.js';
import { type IdempotencyRow, idempotencyOutcome } from './idempotency.js';
import type { InsertJobs } from './jobs.js';

/**
 * The status the claim of a key holds inside its send's transaction until the result replaces
 * it. Never committed, so never read: stored statuses are those of successful responses.
 */
export const CLAIMED = 0;

/** The most sends recorded by one group. */
export const MAX_GROUP = 200;
/**
 * Groups in flight at once, per store. One: the sends that arrive while a group commits form the
 * next, so groups grow with the load. Two at once made groups half as large and answered fewer
 * sends per second (bench/NOTES.md, "Figures behind the design").
 */
export const PARALLEL_GROUPS = 1;

/** A claim's row, with the key it belongs to. */
interface ClaimRow extends IdempotencyRow {
  project_id: string;
  key: string;
}

/**
 * Attempt ids a send makes beforehand beyond its recipient's browsers as last seen, so that a
 * browser or two connecting since do not cost the group its single statement.
 */
export const SPARE_ATTEMPT_IDS = 2;
/**
 * Attempt ids a send makes beforehand for a recipient this instance has not sent to yet, the
 * common case where recipients are many: enough for nearly every recipient, so that a first
 * send costs one statement too. An unused id costs well under a microsecond to make.
 */
export const UNSEEN_RECIPIENT_ATTEMPT_IDS = 16;
/** Recipients whose count of browsers is remembered; past this the counts start over. */
const REMEMBERED_RECIPIENTS = 10_000;

/** A row of the recording statements: an attempt recorded, or the one row saying ids ran short. */
interface RecordedRow {
  attempt_id: string;
  notification_id: string;
  browser_id: string;
  position: number;
  seq: number;
  short: boolean;
}

/** A send of the group that records something, and where its answer goes. */
interface Planned {
  index: number;
  input: CreateNotificationInput;
  browserIds: string[];
  attemptIds: string[];
}

/**
 * Records many sends in one go: the claims of their keys in one statement, then one statement
 * that finds and locks the connected browsers of all their recipients, raises each browser's
 * sequence by its number of attempts under its row lock and writes every notification, attempt
 * and usage count (a read of the browsers first, then the recording, when the attempt ids made
 * beforehand ran short), then the results under the keys with COMMIT. A group without keys runs
 * without an explicit transaction (its recording statement is atomic on its own), as a send
 * alone does. Each send's outcome is the one it would have had alone in the group's place:
 * browsers are locked in the order of their ids and keys in theirs, as by a send alone, so
 * groups and single sends queue rather than deadlock.
 */
export function batchOperations(pool: Pool, sql: Sql, usageShards: number, insertJobs: InsertJobs) {
  const { t, statement } = sql;
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
  const connectedBrowsers = statement(
    'group_browsers',
    `SELECT b.project_id, b.recipient, b.id
       FROM unnest($1::text[], $2::text[]) AS r(project_id, recipient)
       JOIN ${t('browsers')} AS b ON b.project_id = r.project_id AND b.recipient = r.recipient
      WHERE b.connected
      ORDER BY b.id`,
    { planEachRun: true },
  );
  // As the recording statement of a send alone (notifications.ts), for many: each browser is
  // raised once, by its count of attempts, and its attempts take the numbers in send order.
  const record = statement(
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
  const keepGroupPlan = keptPlanReady(t('browsers'));
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

  /** The outcomes of the sends whose keys' claims found a stored result; the others are left undefined. */
  async function claim(db: Queryable, inputs: CreateNotificationInput[], outcomes: CreateNotificationResult[]) {
    const keyed = inputs.filter((input) => input.idempotency !== null);
    const rows = await run<ClaimRow>(db, claimKeys, [
      keyed.map((input) => input.notification.projectId),
      keyed.map((input) => input.idempotency!.key),
      keyed.map((input) => input.idempotency!.fingerprint),
      keyed.map((input) => input.notification.createdAt),
      keyed.map((input) => input.idempotency!.expiresAt),
    ]);
    const stored = new Map<string, ClaimRow>();
    for (const row of rows) stored.set(keyOf(row.project_id, row.key), row);
    for (const [index, input] of inputs.entries()) {
      if (input.idempotency === null) continue;
      const row = stored.get(keyOf(input.notification.projectId, input.idempotency.key));
      if (!row) throw new Error('the claim of an idempotency key returned no row');
      if (row.response_status === CLAIMED) continue;
      const outcome = idempotencyOutcome(row, input.idempotency.fingerprint);
      outcomes[index] =
        outcome.kind === 'mismatch'
          ? outcome
          : { kind: 'replay', response: { status: outcome.status, body: outcome.body } };
    }
  }

  /** The sends that have connected browsers, with their attempts' ids. */
  async function plan(db: Queryable, inputs: CreateNotificationInput[], outcomes: CreateNotificationResult[]) {
    const recipients = new Map<string, { projectId: string; recipient: string; browserIds: string[] }>();
    for (const [index, input] of inputs.entries()) {
      if (outcomes[index] !== undefined) continue;
      const { projectId, recipient } = input.notification;
      recipients.set(keyOf(projectId, recipient), { projectId, recipient, browserIds: [] });
    }
    const wanted = [...recipients.values()];
    if (wanted.length === 0) return [];
    const rows = await run<{ project_id: string; recipient: string; id: string }>(db, connectedBrowsers, [
      wanted.map((r) => r.projectId),
      wanted.map((r) => r.recipient),
    ]);
    for (const row of rows) recipients.get(keyOf(row.project_id, row.recipient))!.browserIds.push(row.id);
    for (const [key, { browserIds }] of recipients) rememberBrowsers(key, browserIds.length);
    const planned: Planned[] = [];
    for (const [index, input] of inputs.entries()) {
      if (outcomes[index] !== undefined) continue;
      const { browserIds } = recipients.get(keyOf(input.notification.projectId, input.notification.recipient))!;
      if (browserIds.length === 0) {
        outcomes[index] = { kind: 'no-connected-browser' };
        continue;
      }
      planned.push({ index, input, browserIds, attemptIds: browserIds.map(() => input.newAttemptId()) });
    }
    return planned;
  }

  /** Records the planned sends and sets their outcomes; a send whose browsers all left meanwhile has none. */
  async function recordAll(
    db: Queryable,
    planned: Planned[],
    outcomes: CreateNotificationResult[],
    failed: Map<number, unknown>,
  ) {
    if (planned.length === 0) return;
    const attempts = planned.flatMap((p, ord) =>
      p.browserIds.map((browserId, i) => ({
        id: p.attemptIds[i]!,
        notificationId: p.input.notification.id,
        browserId,
        position: i + 1,
        ord,
      })),
    );
    const rows = await run<{ attempt_id: string; seq: number }>(db, record, [
      ...notificationColumns(planned.map((p) => p.input.notification)),
      attempts.map((a) => a.id),
      attempts.map((a) => a.notificationId),
      attempts.map((a) => a.browserId),
      attempts.map((a) => a.position),
      attempts.map((a) => a.ord),
      [...new Set(attempts.map((a) => a.browserId))],
      usageShards,
    ]);
    const seqs = new Map(rows.map((row) => [row.attempt_id, row.seq]));
    for (const p of planned) {
      const recorded: AttemptRecord[] = [];
      for (const [i, attemptId] of p.attemptIds.entries()) {
        const seq = seqs.get(attemptId);
        if (seq !== undefined) recorded.push(acceptedAttempt(p.input.notification, attemptId, p.browserIds[i]!, seq));
      }
      settle(p.index, p.input, recorded, outcomes, failed);
    }
  }

  /** How many browsers each recipient was last seen with: a hint for the ids a send makes beforehand. */
  const browserCounts = new Map<string, number>();
  function rememberBrowsers(recipientKey: string, count: number) {
    if (browserCounts.size >= REMEMBERED_RECIPIENTS && !browserCounts.has(recipientKey)) browserCounts.clear();
    browserCounts.set(recipientKey, count);
  }

  /**
   * Records the sends without an outcome yet in one statement, each with attempt ids made
   * beforehand. Resolves false, having written nothing, when a send had more connected browsers
   * than ids.
   */
  async function recordNamed(
    db: Queryable,
    inputs: CreateNotificationInput[],
    outcomes: CreateNotificationResult[],
    failed: Map<number, unknown>,
  ): Promise<boolean> {
    const sends: { index: number; input: CreateNotificationInput; recipientKey: string; attemptIds: string[] }[] = [];
    for (const [index, input] of inputs.entries()) {
      if (outcomes[index] !== undefined) continue;
      const recipientKey = keyOf(input.notification.projectId, input.notification.recipient);
      const known = browserCounts.get(recipientKey);
      const ids = known === undefined ? UNSEEN_RECIPIENT_ATTEMPT_IDS : known + SPARE_ATTEMPT_IDS;
      sends.push({ index, input, recipientKey, attemptIds: Array.from({ length: ids }, () => input.newAttemptId()) });
    }
    if (sends.length === 0) return true;
    const recording = (await keepGroupPlan(db)) ? recordAtOnce.kept : recordAtOnce.planned;
    const rows = await run<RecordedRow>(db, recording, [
      ...notificationColumns(sends.map((send) => send.input.notification)),
      sends.flatMap((send, ord) => send.attemptIds.map(() => ord + 1)),
      sends.flatMap((send) => send.attemptIds.map((_, i) => i + 1)),
      sends.flatMap((send) => send.attemptIds),
      usageShards,
    ]);
    if (rows.some((row) => row.short)) return false;
    const byNotification = new Map<string, RecordedRow[]>();
    for (const row of rows) {
      const own = byNotification.get(row.notification_id);
      if (own) own.push(row);
      else byNotification.set(row.notification_id, [row]);
    }
    for (const send of sends) {
      const { notification } = send.input;
      const own = (byNotification.get(notification.id) ?? []).sort((a, b) => a.position - b.position);
      rememberBrowsers(send.recipientKey, own.length);
      const recorded = own.map((row) => acceptedAttempt(notification, row.attempt_id, row.browser_id, row.seq));
      settle(send.index, send.input, recorded, outcomes, failed);
    }
    return true;
  }

  /** Records the sends without an outcome yet: in one statement, or in two when ids ran short. */
  async function recordSends(
    db: Queryable,
    inputs: CreateNotificationInput[],
    outcomes: CreateNotificationResult[],
    failed: Map<number, unknown>,
  ) {
    if (await recordNamed(db, inputs, outcomes, failed)) return;
    await recordAll(db, await plan(db, inputs, outcomes), outcomes, failed);
  }

  /** The settling statement's values: results of created keyed sends, claims of the others to drop. */
  function settleValues(inputs: CreateNotificationInput[], outcomes: CreateNotificationResult[]): unknown[] {
    const stored: { projectId: string; key: string; status: number; body: string }[] = [];
    const dropped: { projectId: string; key: string }[] = [];
    for (const [index, input] of inputs.entries()) {
      if (input.idempotency === null) continue;
      const outcome = outcomes[index]!;
      const at = { projectId: input.notification.projectId, key: input.idempotency.key };
      if (outcome.kind === 'created') stored.push({ ...at, ...outcome.response });
      else if (outcome.kind === 'no-connected-browser') dropped.push(at);
    }
    return [
      stored.map((s) => s.projectId),
      stored.map((s) => s.key),
      stored.map((s) => s.status),
      stored.map((s) => s.body),
      dropped.map((d) => d.projectId),
      dropped.map((d) => d.key),
    ];
  }

  /** One outcome per send, in order; a send whose answer could not be rendered rejects alone. */
  return async function sendTogether(
    inputs: CreateNotificationInput[],
  ): Promise<Array<CreateNotificationResult | Promise<CreateNotificationResult>>> {
    const outcomes: CreateNotificationResult[] = new Array(inputs.length);
    const failed = new Map<number, unknown>();
    const keyed = inputs.some((input) => input.idempotency !== null);
    if (!keyed && inputs.every((input) => !input.jobs)) {
      await recordSends(pool, inputs, outcomes, failed);
    } else {
      await transaction(pool, async (client) => {
        if (keyed) await claim(client, inputs, outcomes);
        await recordSends(client, inputs, outcomes, failed);
        // The jobs of the created sends, in one statement with the keys' results and COMMIT. A
        // jobs function that throws rolls the group back, and each send runs again alone.
        const jobs = groupJobs(inputs, outcomes, failed);
        return commitWith(
          client,
          [
            keyed ? () => run(client, settleKeys, settleValues(inputs, outcomes)) : null,
            jobs.jobs.length > 0 ? () => insertJobs(client, jobs.jobs, jobs.times) : null,
          ],
          undefined,
        );
      });
    }
    return outcomes.map((outcome, index) => (failed.has(index) ? Promise.reject(failed.get(index)) : outcome));
  };
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

/** The jobs of the group's created sends, each created at its notification's time. */
function groupJobs(
  inputs: CreateNotificationInput[],
  outcomes: CreateNotificationResult[],
  failed: Map<number, unknown>,
): { jobs: NewJob[]; times: number[] } {
  const jobs: NewJob[] = [];
  const times: number[] = [];
  for (const [index, input] of inputs.entries()) {
    const outcome = outcomes[index];
    if (!input.jobs || outcome?.kind !== 'created' || failed.has(index)) continue;
    for (const job of input.jobs(outcome.created)) {
      jobs.push(job);
      times.push(input.notification.createdAt);
    }
  }
  return { jobs, times };
}

/** A send's outcome from the attempts recorded for it: none means its browsers had all left. */
function settle(
  index: number,
  input: CreateNotificationInput,
  recorded: AttemptRecord[],
  outcomes: CreateNotificationResult[],
  failed: Map<number, unknown>,
) {
  if (recorded.length === 0) {
    outcomes[index] = { kind: 'no-connected-browser' };
    return;
  }
  const created = { notification: input.notification, attempts: recorded };
  try {
    outcomes[index] = { kind: 'created', created, response: input.render(created) };
  } catch (error) {
    // This send fails alone; the others of the group stand. Nothing is kept under its key.
    failed.set(index, error);
    outcomes[index] = { kind: 'no-connected-browser' };
  }
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
function notificationColumns(notifications: NotificationRecord[]): unknown[] {
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

function keyOf(projectId: string, name: string): string {
  return `${projectId}\n${name}`;
}
