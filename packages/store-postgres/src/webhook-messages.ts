import type { AttemptRecord, NotificationRecord, NotificationWithAttempts } from '@tidings/core';
import {
  anyEndpointWants,
  isNotificationChange,
  type NewWebhookMessage,
  type WebhookChange,
  type WebhookEndpointRecord,
  type WebhookMessageAttemptRecord,
  type WebhookMessageRecord,
  type WebhookMessageStore,
  webhookJobOf,
  webhookMessagesOf,
} from '@tidings/core/store';
import type { Pool } from 'pg';
import { ATTEMPTS_JSON, NOTIFICATION } from './columns.js';
import { type Queryable, run, type Sql, transaction } from './db.js';
import type { InsertJobs } from './jobs.js';
import { ENDPOINT } from './webhook-endpoints.js';

/** A message's columns as its record; `payload` is the text sent, parsed by {@link messageOf}. */
const MESSAGE =
  'seq, id, project_id AS "projectId", endpoint_id AS "endpointId", event_type AS "eventType", payload, ' +
  'order_key AS "orderKey", status, attempts, created_at AS "createdAt", next_attempt_at AS "nextAttemptAt", ' +
  'last_attempt_at AS "lastAttemptAt", delivered_at AS "deliveredAt"';

const ATTEMPT =
  'message_id AS "messageId", attempted_at AS "attemptedAt", status_code AS "statusCode", latency_ms AS "latencyMs", ' +
  'outcome, response_excerpt AS "responseExcerpt", error';

type MessageRow = Omit<WebhookMessageRecord, 'payload'> & { payload: string; seq: number };

function messageOf({ seq: _seq, ...row }: MessageRow): WebhookMessageRecord {
  return { ...row, payload: JSON.parse(row.payload) as unknown };
}

function bySeq(a: MessageRow, b: MessageRow): number {
  return a.seq - b.seq;
}

/** Records messages with their jobs inside the caller's transaction. */
export type InsertWebhookMessages = (
  db: Queryable,
  messages: readonly NewWebhookMessage[],
  now: number,
) => Promise<WebhookMessageRecord[]>;

/**
 * Records the webhook events of a write's changes inside its transaction. A project without an
 * enabled endpoint costs one statement (the projects of the changed rows joined to their
 * enabled endpoints); the changed notifications are read only for a project that has one.
 */
export type RecordWebhookEvents = (db: Queryable, changes: readonly WebhookChange[], now: number) => Promise<void>;

/** Webhook messages: their log, their requests, resends, and the endpoint failing for days. */
export function webhookMessageOperations(
  pool: Pool,
  sql: Sql,
  insertJobs: InsertJobs,
): WebhookMessageStore & {
  insertMessages: InsertWebhookMessages;
  recordEvents: RecordWebhookEvents;
  /** How many messages were recorded so far (inserted; maybe not yet committed), for the runner's wake-ups. */
  recorded(): number;
} {
  const { t, statement } = sql;
  const insert = statement(
    'insert_webhook_messages',
    `INSERT INTO ${t('webhook_messages')}
       (id, project_id, endpoint_id, event_type, payload, order_key, status, attempts, created_at, next_attempt_at)
     SELECT m.id, m.project_id, m.endpoint_id, m.event_type, m.payload, m.order_key, 'pending', 0, m.created_at, m.created_at
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int8[])
            WITH ORDINALITY AS m(id, project_id, endpoint_id, event_type, payload, order_key, created_at, n)
      ORDER BY m.n
     RETURNING ${MESSAGE}`,
  );
  // The enabled endpoints of the projects of the changed notifications and browsers.
  const sources = statement(
    'webhook_event_sources',
    `WITH src AS (
       SELECT id, project_id FROM ${t('notifications')} WHERE id = ANY($1::text[])
       UNION ALL
       SELECT id, project_id FROM ${t('browsers')} WHERE id = ANY($2::text[])
     )
     SELECT src.id AS source, e.* FROM src
       JOIN LATERAL (
         SELECT ${ENDPOINT} FROM ${t('webhook_endpoints')}
          WHERE project_id = src.project_id AND status = 'enabled' ORDER BY created_at, id
       ) AS e ON true`,
    { planEachRun: true },
  );
  // Taken before the notifications are read: of two transactions that end the last attempts of
  // one notification at once, the second waits for the first to commit and then reads every
  // attempt final, so exactly one of them reports `notification.completed`.
  const lockNotifications = statement(
    'lock_webhook_notifications',
    `SELECT id FROM ${t('notifications')} WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE`,
    { planEachRun: true },
  );
  const selectNotifications = statement(
    'select_webhook_notifications',
    `SELECT ${NOTIFICATION}, ${ATTEMPTS_JSON.replace('{attempts}', t('attempts'))} AS attempts
       FROM ${t('notifications')} AS n WHERE n.id = ANY($1::text[])`,
    { planEachRun: true },
  );
  const selectMessage = statement(
    'select_webhook_message',
    `SELECT ${MESSAGE} FROM ${t('webhook_messages')} WHERE id = $1`,
  );
  const selectAttempts = statement(
    'select_webhook_message_attempts',
    `SELECT ${ATTEMPT} FROM ${t('webhook_message_attempts')} WHERE message_id = $1 ORDER BY n`,
  );
  const selectPage = statement(
    'select_webhook_messages',
    `SELECT ${MESSAGE} FROM ${t('webhook_messages')}
      WHERE endpoint_id = $1
        AND ($2::text IS NULL OR status = $2)
        AND ($3::int8 IS NULL OR created_at >= $3)
        AND ($4::text IS NULL OR seq < (SELECT seq FROM ${t('webhook_messages')} WHERE id = $4))
        AND ($6::text IS NULL OR event_type = $6)
        AND ($7::text IS NULL OR order_key = $7)
        AND ($8::text IS NULL OR (payload::json -> 'data' ->> 'recipient') = $8)
      ORDER BY seq DESC
      LIMIT $5`,
  );
  // The message's row lock orders the requests of one message.
  const lockMessage = statement(
    'lock_webhook_message',
    `SELECT endpoint_id FROM ${t('webhook_messages')} WHERE id = $1 FOR UPDATE`,
  );
  const insertAttempt = statement(
    'insert_webhook_message_attempt',
    `INSERT INTO ${t('webhook_message_attempts')}
       (message_id, n, attempted_at, status_code, latency_ms, outcome, response_excerpt, error)
     VALUES ($1, (SELECT coalesce(max(n), 0) + 1 FROM ${t('webhook_message_attempts')} WHERE message_id = $1),
             $2, $3, $4, $5, $6, $7)`,
  );
  const updateMessage = statement(
    'update_webhook_message',
    `UPDATE ${t('webhook_messages')}
        SET status = $2, attempts = attempts + 1, last_attempt_at = $3, next_attempt_at = $4,
            delivered_at = CASE WHEN $2 = 'delivered' THEN $3 ELSE delivered_at END
      WHERE id = $1 RETURNING ${MESSAGE}`,
  );
  const markSucceeded = statement(
    'webhook_endpoint_succeeded',
    `UPDATE ${t('webhook_endpoints')} SET failing_since = NULL WHERE id = $1 RETURNING ${ENDPOINT}`,
  );
  const markFailing = statement(
    'webhook_endpoint_failing',
    `UPDATE ${t('webhook_endpoints')} SET failing_since = coalesce(failing_since, $2) WHERE id = $1 RETURNING ${ENDPOINT}`,
  );
  const lockByIds = statement(
    'lock_webhook_messages',
    `SELECT ${MESSAGE} FROM ${t('webhook_messages')} WHERE id = ANY($1::text[]) ORDER BY seq FOR UPDATE`,
  );
  const lockSince = statement(
    'lock_webhook_messages_since',
    `SELECT ${MESSAGE} FROM ${t('webhook_messages')}
      WHERE endpoint_id = $1 AND created_at >= $2 ORDER BY seq FOR UPDATE`,
  );
  // A pending message's job waits for its retry: made due now, it keeps its place and its count.
  const hastenMessages = statement(
    'hasten_webhook_messages',
    `UPDATE ${t('webhook_messages')} SET next_attempt_at = least(coalesce(next_attempt_at, $2), $2)
      WHERE id = ANY($1::text[]) AND status = 'pending' RETURNING ${MESSAGE}`,
  );
  const hastenJobs = statement(
    'hasten_webhook_jobs',
    `UPDATE ${t('jobs')} SET run_at = $2
      WHERE key = ANY($3::text[]) AND status = 'pending' AND run_at > $2 AND kind = 'webhook'
        AND payload->>'messageId' = ANY($1::text[])`,
  );
  const makePending = statement(
    'resend_webhook_messages',
    `UPDATE ${t('webhook_messages')} SET status = 'pending', next_attempt_at = $2, delivered_at = NULL
      WHERE id = ANY($1::text[]) RETURNING ${MESSAGE}`,
  );
  const disableFailing = statement(
    'disable_failing_webhook_endpoint',
    `UPDATE ${t('webhook_endpoints')} SET status = 'disabled', disabled_reason = $3, updated_at = $4
      WHERE id = $1 AND status = 'enabled' AND failing_since IS NOT NULL AND failing_since <= $2
      RETURNING ${ENDPOINT}`,
  );

  let recorded = 0;
  const insertMessages: InsertWebhookMessages = async (db, messages, now) => {
    if (messages.length === 0) return [];
    recorded += messages.length;
    const rows = await run<MessageRow>(db, insert, [
      messages.map((message) => message.id),
      messages.map((message) => message.projectId),
      messages.map((message) => message.endpointId),
      messages.map((message) => message.eventType),
      messages.map((message) => JSON.stringify(message.payload)),
      messages.map((message) => message.orderKey),
      messages.map((message) => message.createdAt),
    ]);
    const records = rows.sort(bySeq).map(messageOf);
    await insertJobs(
      db,
      records.map((record) => webhookJobOf(record)),
      now,
    );
    return records;
  };

  const recordEvents: RecordWebhookEvents = async (db, changes, now) => {
    if (changes.length === 0) return;
    const notificationIds = new Set<string>();
    const browserIds = new Set<string>();
    for (const change of changes) {
      if (isNotificationChange(change)) notificationIds.add(change.notificationId);
      else browserIds.add(change.browserId);
    }
    const rows = await run<WebhookEndpointRecord & { source: string }>(db, sources, [
      [...notificationIds],
      [...browserIds],
    ]);
    if (rows.length === 0) return;
    const projectOf = new Map<string, string>();
    const endpointsOf = new Map<string, Map<string, WebhookEndpointRecord>>();
    for (const { source, ...endpoint } of rows) {
      projectOf.set(source, endpoint.projectId);
      let endpoints = endpointsOf.get(endpoint.projectId);
      if (!endpoints) {
        endpoints = new Map();
        endpointsOf.set(endpoint.projectId, endpoints);
      }
      endpoints.set(endpoint.id, endpoint);
    }
    const byProject = new Map<string, WebhookChange[]>();
    for (const change of changes) {
      const projectId = projectOf.get(isNotificationChange(change) ? change.notificationId : change.browserId);
      if (projectId === undefined) continue;
      let list = byProject.get(projectId);
      if (!list) {
        list = [];
        byProject.set(projectId, list);
      }
      list.push(change);
    }
    const wanted = [...byProject].filter(([projectId, list]) =>
      anyEndpointWants([...endpointsOf.get(projectId)!.values()], list),
    );
    if (wanted.length === 0) return;
    const toRead = new Set<string>();
    for (const [, list] of wanted)
      for (const change of list) if (change.kind === 'attempt') toRead.add(change.notificationId);
    const notifications = new Map<string, NotificationWithAttempts>();
    if (toRead.size > 0) {
      await run(db, lockNotifications, [[...toRead]]);
      // A statement of its own after the lock, so that it reads what the transaction waited for.
      const found = await run<NotificationRecord & { attempts: AttemptRecord[] }>(db, selectNotifications, [
        [...toRead],
      ]);
      for (const { attempts, ...notification } of found) notifications.set(notification.id, { notification, attempts });
    }
    const messages: NewWebhookMessage[] = [];
    for (const [projectId, list] of wanted) {
      const endpoints = [...endpointsOf.get(projectId)!.values()];
      messages.push(...webhookMessagesOf({ endpoints, changes: list, notifications, now }));
    }
    await insertMessages(db, messages, now);
  };

  async function resend(db: Queryable, rows: MessageRow[], now: number): Promise<WebhookMessageRecord[]> {
    const again = rows.filter((row) => row.status !== 'pending').map((row) => row.id);
    const updated =
      again.length === 0 ? [] : (await run<MessageRow>(db, makePending, [again, now])).sort(bySeq).map(messageOf);
    await insertJobs(
      db,
      updated.map((message) => webhookJobOf(message, now)),
      now,
    );
    // A message still pending is on its way already: it keeps its job, made due now (a retry
    // waiting for its delay goes at once; one waiting behind an older message of its key stays there).
    const waiting = rows.filter((row) => row.status === 'pending').map((row) => row.id);
    const hastened =
      waiting.length === 0 ? [] : (await run<MessageRow>(db, hastenMessages, [waiting, now])).map(messageOf);
    if (hastened.length > 0) {
      const keys = [...new Set(hastened.map((message) => webhookJobOf(message).key))];
      await run(db, hastenJobs, [hastened.map((message) => message.id), now, keys]);
    }
    const byId = new Map([...updated, ...hastened].map((message) => [message.id, message]));
    return rows.map((row) => byId.get(row.id) ?? messageOf(row));
  }

  return {
    insertMessages,
    recordEvents,
    recorded: () => recorded,
    async enqueueWebhookMessages({ messages, now }) {
      return transaction(pool, (client) => insertMessages(client, messages, now));
    },
    async getWebhookMessage(id) {
      const [row] = await run<MessageRow>(pool, selectMessage, [id]);
      if (!row) return null;
      const attempts = await run<WebhookMessageAttemptRecord>(pool, selectAttempts, [id]);
      return { message: messageOf(row), attempts };
    },
    async listWebhookMessages({ endpointId, status, since, before, limit, eventType, notificationId, recipient }) {
      const values = [endpointId, status, since, before, limit, eventType ?? null, notificationId ?? null];
      return (await run<MessageRow>(pool, selectPage, [...values, recipient ?? null])).map(messageOf);
    },
    async recordWebhookAttempt({ attempt, status, nextAttemptAt }) {
      return transaction(pool, async (client) => {
        const [locked] = await run<{ endpoint_id: string }>(client, lockMessage, [attempt.messageId]);
        if (!locked) return null;
        await run(client, insertAttempt, [
          attempt.messageId,
          attempt.attemptedAt,
          attempt.statusCode,
          attempt.latencyMs,
          attempt.outcome,
          attempt.responseExcerpt,
          attempt.error,
        ]);
        const [row] = await run<MessageRow>(client, updateMessage, [
          attempt.messageId,
          status,
          attempt.attemptedAt,
          status === 'pending' ? nextAttemptAt : null,
        ]);
        const [endpoint] =
          attempt.outcome === 'succeeded'
            ? await run<WebhookEndpointRecord>(client, markSucceeded, [locked.endpoint_id])
            : await run<WebhookEndpointRecord>(client, markFailing, [locked.endpoint_id, attempt.attemptedAt]);
        return { message: messageOf(row!), endpoint: endpoint ?? null };
      });
    },
    async resendWebhookMessages(input) {
      return transaction(pool, async (client) => {
        const rows =
          'ids' in input
            ? await run<MessageRow>(client, lockByIds, [[...new Set(input.ids)]])
            : await run<MessageRow>(client, lockSince, [input.endpointId, input.since]);
        return resend(client, rows, input.now);
      });
    },
    async disableFailingWebhookEndpoint({ id, failingSince, reason, now }) {
      const [row] = await run<WebhookEndpointRecord>(pool, disableFailing, [id, failingSince, reason, now]);
      return row ?? null;
    },
  };
}
