import type { NotificationWithAttempts, Store } from '@tidings/core';
import {
  anyEndpointWants,
  isNotificationChange,
  type NewWebhookMessage,
  type WebhookAttemptOutcome,
  type WebhookChange,
  type WebhookEndpointRecord,
  type WebhookMessageAttemptRecord,
  type WebhookMessageRecord,
  type WebhookMessageStatus,
  type WebhookMessageStore,
  webhookJobOf,
  webhookMessagesOf,
} from '@tidings/core/store';
import type Database from 'better-sqlite3';
import type { GroupWrites } from './group-commit.js';
import type { InsertJobs } from './jobs.js';
import { NOTIFICATION_WITH_ATTEMPTS_COLUMNS, notificationFromRawRows, type RawNotificationRow } from './rows.js';
import { endpointFromRow, type WebhookEndpointRow } from './webhook-endpoints.js';

interface MessageRow {
  seq: number;
  id: string;
  project_id: string;
  endpoint_id: string;
  event_type: string;
  payload: string;
  order_key: string;
  status: WebhookMessageStatus;
  attempts: number;
  created_at: number;
  next_attempt_at: number | null;
  last_attempt_at: number | null;
  delivered_at: number | null;
}

interface AttemptRow {
  message_id: string;
  attempted_at: number;
  status_code: number | null;
  latency_ms: number;
  outcome: WebhookAttemptOutcome;
  response_excerpt: string | null;
  error: string | null;
}

function messageFromRow(row: MessageRow): WebhookMessageRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    endpointId: row.endpoint_id,
    eventType: row.event_type,
    payload: JSON.parse(row.payload) as unknown,
    orderKey: row.order_key,
    status: row.status,
    attempts: row.attempts,
    createdAt: row.created_at,
    nextAttemptAt: row.next_attempt_at,
    lastAttemptAt: row.last_attempt_at,
    deliveredAt: row.delivered_at,
  };
}

function attemptFromRow(row: AttemptRow): WebhookMessageAttemptRecord {
  return {
    messageId: row.message_id,
    attemptedAt: row.attempted_at,
    statusCode: row.status_code,
    latencyMs: row.latency_ms,
    outcome: row.outcome,
    responseExcerpt: row.response_excerpt,
    error: row.error,
  };
}

/**
 * Inserts messages and their jobs inside the caller's write transaction; `recorded` counts the
 * messages inserted so far (for the runner's wake-ups).
 */
export type InsertWebhookMessages = ((
  messages: readonly NewWebhookMessage[],
  now: number,
) => WebhookMessageRecord[]) & {
  recorded(): number;
};

/** The statement that records messages with their `webhook` jobs. */
export function webhookMessageInserter(db: Database.Database, insertJobs: InsertJobs): InsertWebhookMessages {
  const insert = db.prepare<[string, string, string, string, string, string, number, number], MessageRow>(
    `INSERT INTO webhook_messages
       (id, project_id, endpoint_id, event_type, payload, order_key, status, attempts, created_at, next_attempt_at)
     VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?) RETURNING *`,
  );
  let recorded = 0;
  const insertMessages = (messages: readonly NewWebhookMessage[], now: number) => {
    if (messages.length === 0) return [];
    recorded += messages.length;
    const records = messages.map((message) =>
      messageFromRow(
        insert.get(
          message.id,
          message.projectId,
          message.endpointId,
          message.eventType,
          JSON.stringify(message.payload),
          message.orderKey,
          message.createdAt,
          message.createdAt,
        )!,
      ),
    );
    insertJobs(
      records.map((record) => webhookJobOf(record)),
      now,
    );
    return records;
  };
  return Object.assign(insertMessages, { recorded: () => recorded });
}

/**
 * Records the webhook events of a write's changes, inside its transaction. A project without
 * an enabled endpoint that wants them costs one indexed read; the changed notifications are read
 * only for a project that has one.
 */
export type RecordWebhookEvents = (changes: readonly WebhookChange[], now: number) => void;

/** The recorder of webhook events that the writes changing attempts and browsers call. */
export function webhookEventRecorder(
  db: Database.Database,
  insertMessages: InsertWebhookMessages,
): RecordWebhookEvents {
  const selectEnabled = db.prepare<[string], WebhookEndpointRow>(
    "SELECT * FROM webhook_endpoints WHERE project_id = ? AND status = 'enabled' ORDER BY created_at, id",
  );
  const selectNotification = db
    .prepare<[string], RawNotificationRow>(
      `SELECT ${NOTIFICATION_WITH_ATTEMPTS_COLUMNS}
         FROM notifications AS n LEFT JOIN attempts AS a ON a.notification_id = n.id
        WHERE n.id = ?
        ORDER BY a.rowid`,
    )
    .raw();
  const notificationProject = db.prepare<[string], string>('SELECT project_id FROM notifications WHERE id = ?').pluck();
  const browserProject = db.prepare<[string], string>('SELECT project_id FROM browsers WHERE id = ?').pluck();
  return (changes, now) => {
    if (changes.length === 0) return;
    const byProject = new Map<string, WebhookChange[]>();
    for (const change of changes) {
      const projectId = isNotificationChange(change)
        ? notificationProject.get(change.notificationId)
        : browserProject.get(change.browserId);
      if (projectId === undefined) continue;
      let list = byProject.get(projectId);
      if (!list) {
        list = [];
        byProject.set(projectId, list);
      }
      list.push(change);
    }
    for (const [projectId, projectChanges] of byProject) {
      const endpoints: WebhookEndpointRecord[] = selectEnabled.all(projectId).map(endpointFromRow);
      if (endpoints.length === 0 || !anyEndpointWants(endpoints, projectChanges)) continue;
      const notifications = new Map<string, NotificationWithAttempts>();
      for (const change of projectChanges) {
        if (change.kind !== 'attempt' || notifications.has(change.notificationId)) continue;
        const found = notificationFromRawRows(selectNotification.all(change.notificationId));
        if (found) notifications.set(change.notificationId, found);
      }
      insertMessages(webhookMessagesOf({ endpoints, changes: projectChanges, notifications, now }), now);
    }
  };
}

/** Webhook messages: their log, their requests, resends, and the endpoint failing for days. */
export function webhookMessageOperations(
  db: Database.Database,
  insertMessages: InsertWebhookMessages,
  insertJobs: InsertJobs,
  group: GroupWrites,
): WebhookMessageStore {
  const selectMessage = db.prepare<[string], MessageRow>('SELECT * FROM webhook_messages WHERE id = ?');
  const selectAttempts = db.prepare<[string], AttemptRow>(
    'SELECT * FROM webhook_message_attempts WHERE message_id = ? ORDER BY n',
  );
  const selectPage = db.prepare<Record<string, unknown>, MessageRow>(
    `SELECT * FROM webhook_messages
      WHERE endpoint_id = @endpointId
        AND (@status IS NULL OR status = @status)
        AND (@since IS NULL OR created_at >= @since)
        AND (@before IS NULL OR seq < (SELECT seq FROM webhook_messages WHERE id = @before))
        AND (@eventType IS NULL OR event_type = @eventType)
        AND (@notificationId IS NULL OR order_key = @notificationId)
        AND (@recipient IS NULL OR json_extract(payload, '$.data.recipient') = @recipient)
      ORDER BY seq DESC
      LIMIT @limit`,
  );
  const insertAttempt = db.prepare<Record<string, unknown>>(
    `INSERT INTO webhook_message_attempts
       (message_id, n, attempted_at, status_code, latency_ms, outcome, response_excerpt, error)
     VALUES (@messageId, (SELECT coalesce(max(n), 0) + 1 FROM webhook_message_attempts WHERE message_id = @messageId),
             @attemptedAt, @statusCode, @latencyMs, @outcome, @responseExcerpt, @error)`,
  );
  const updateMessage = db.prepare<Record<string, unknown>, MessageRow>(
    `UPDATE webhook_messages
        SET status = @status, attempts = attempts + 1, last_attempt_at = @attemptedAt,
            next_attempt_at = @nextAttemptAt,
            delivered_at = CASE WHEN @status = 'delivered' THEN @attemptedAt ELSE delivered_at END
      WHERE id = @messageId RETURNING *`,
  );
  const markSucceeded = db.prepare<[string], WebhookEndpointRow>(
    'UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? RETURNING *',
  );
  const markFailing = db.prepare<[number, string], WebhookEndpointRow>(
    'UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ?) WHERE id = ? RETURNING *',
  );
  const selectResendable = db.prepare<[string, number], MessageRow>(
    'SELECT * FROM webhook_messages WHERE endpoint_id = ? AND created_at >= ? ORDER BY seq',
  );
  // A pending message's job waits for its retry: made due now, it keeps its place and its count.
  const hastenMessage = db.prepare<[number, number, string], MessageRow>(
    `UPDATE webhook_messages SET next_attempt_at = min(coalesce(next_attempt_at, ?), ?)
      WHERE id = ? AND status = 'pending' RETURNING *`,
  );
  const hastenJob = db.prepare<[number, string, number, string]>(
    `UPDATE jobs SET run_at = ?
      WHERE key = ? AND status = 'pending' AND run_at > ? AND kind = 'webhook'
        AND json_extract(payload, '$.messageId') = ?`,
  );
  const makePending = db.prepare<[number, string], MessageRow>(
    `UPDATE webhook_messages SET status = 'pending', next_attempt_at = ?, delivered_at = NULL
      WHERE id = ? RETURNING *`,
  );
  const disableFailing = db.prepare<Record<string, unknown>, WebhookEndpointRow>(
    `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = @reason, updated_at = @now
      WHERE id = @id AND status = 'enabled' AND failing_since IS NOT NULL AND failing_since <= @failingSince
      RETURNING *`,
  );

  const enqueue = db.transaction((messages: NewWebhookMessage[], now: number) => insertMessages(messages, now));
  const record = db.transaction((input: Parameters<Store['recordWebhookAttempt']>[0]) => {
    const { attempt } = input;
    const existing = selectMessage.get(attempt.messageId);
    if (!existing) return null;
    insertAttempt.run({ ...attempt });
    const message = messageFromRow(
      updateMessage.get({
        messageId: attempt.messageId,
        status: input.status,
        attemptedAt: attempt.attemptedAt,
        nextAttemptAt: input.status === 'pending' ? input.nextAttemptAt : null,
      })!,
    );
    const row =
      attempt.outcome === 'succeeded'
        ? markSucceeded.get(existing.endpoint_id)
        : markFailing.get(attempt.attemptedAt, existing.endpoint_id);
    return { message, endpoint: row ? endpointFromRow(row) : null };
  });
  // A message still pending is on its way already: it keeps its job, made due now (a retry
  // waiting for its delay goes at once; one waiting behind an older message of its key stays there).
  const hasten = (row: MessageRow, now: number): WebhookMessageRecord => {
    const message = messageFromRow(hastenMessage.get(now, now, row.id) ?? row);
    hastenJob.run(now, webhookJobOf(message).key, now, message.id);
    return message;
  };
  const resend = db.transaction((rows: MessageRow[], now: number) => {
    const again = rows
      .filter((row) => row.status !== 'pending')
      .map((row) => messageFromRow(makePending.get(now, row.id)!));
    insertJobs(
      again.map((message) => webhookJobOf(message, now)),
      now,
    );
    const byId = new Map(again.map((message) => [message.id, message]));
    return rows.map((row) => byId.get(row.id) ?? hasten(row, now));
  });
  const resendIds = db.transaction((ids: string[], now: number) => {
    const rows = [...new Set(ids)]
      .map((id) => selectMessage.get(id))
      .filter((row): row is MessageRow => row !== undefined)
      .sort((a, b) => a.seq - b.seq);
    return resend(rows, now);
  });
  const resendSince = db.transaction((endpointId: string, since: number, now: number) =>
    resend(selectResendable.all(endpointId, since), now),
  );

  return {
    async enqueueWebhookMessages({ messages, now }) {
      return enqueue.immediate(messages, now);
    },
    async getWebhookMessage(id) {
      const row = selectMessage.get(id);
      if (!row) return null;
      return { message: messageFromRow(row), attempts: selectAttempts.all(id).map(attemptFromRow) };
    },
    async listWebhookMessages(input) {
      return selectPage
        .all({
          ...input,
          eventType: input.eventType ?? null,
          notificationId: input.notificationId ?? null,
          recipient: input.recipient ?? null,
        })
        .map(messageFromRow);
    },
    // In the group commit: the attempts of the messages of one turn share a transaction and a flush.
    recordWebhookAttempt(input) {
      return group.run(() => record(input));
    },
    async resendWebhookMessages(input) {
      if ('ids' in input) return resendIds.immediate(input.ids, input.now);
      return resendSince.immediate(input.endpointId, input.since, input.now);
    },
    async disableFailingWebhookEndpoint(input) {
      const row = disableFailing.get({ ...input });
      return row ? endpointFromRow(row) : null;
    },
  };
}
