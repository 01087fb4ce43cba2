import type { AttemptRecord, NotificationRecord, UsageBreakdownDay, UsageDay } from '@tidings/core';
import {
  type CreateNotificationInput,
  type CreateNotificationResult,
  idTimeFloor,
  type NotificationStore,
  type UsageStore,
} from '@tidings/core/store';
import type { Pool } from 'pg';
import { ATTEMPTS_JSON, NOTIFICATION } from './columns.js';
import { commitWith, type Queryable, rollBack, run, type Sql, type Statement, transaction } from './db.js';
import { createGroup } from './group.js';
import type { InsertJobs } from './jobs.js';
import { batchOperations, MAX_GROUP, PARALLEL_GROUPS } from './send-batch.js';
import { type RunStatement, type SendStatements, writeSend } from './send-statements.js';

type NotificationOperations = NotificationStore & UsageStore;

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
  statements: SendStatements,
  usageShards: number,
  insertJobs: InsertJobs,
): NotificationOperations {
  const { t, statement } = sql;
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

  /** The statements of a send run on one connection: the pool's, or a transaction's client. */
  const on =
    (db: Queryable): RunStatement =>
    <Row extends object>(statement: Statement, values: unknown[]) =>
      run(db, statement, values) as Promise<unknown[]> as Promise<Row[]>;

  // A send without a key or jobs needs no explicit transaction: its recording statement is
  // atomic on its own. Any other is one transaction, whose result under the key and jobs go
  // out with COMMIT; a replay, mismatch or refusal rolls back, so nothing stays behind, and a
  // process that dies in between leaves nothing either (its transaction dies with its connection).
  const sendAlone = async (input: CreateNotificationInput): Promise<CreateNotificationResult> => {
    if (input.idempotency === null && !input.jobs) {
      return (await writeSend(on(pool), statements, input, usageShards)).outcome;
    }
    return transaction<CreateNotificationResult>(pool, async (client) => {
      const written = await writeSend(on(client), statements, input, usageShards);
      if (written.kind === 'refused') return rollBack(written.outcome);
      const { storeResult, jobs } = written;
      return commitWith(
        client,
        [
          storeResult ? () => run(client, statements.storeResult, storeResult) : null,
          jobs.length > 0 ? () => insertJobs(client, jobs, input.notification.createdAt) : null,
        ],
        written.outcome,
      );
    });
  };
  const sendTogether = batchOperations(pool, sql, statements.group, usageShards, insertJobs);
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
    // A send kept for the inbox goes alone: the group's statements record attempts only.
    createNotification: (input) => (input.keepForInbox === true ? sendAlone(input) : sends.run(input)),
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
