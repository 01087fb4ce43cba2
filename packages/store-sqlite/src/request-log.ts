import type { KeyMode } from '@tidings/core';
import type { ListRequestLogInput, RequestLogEntry, RequestLogStore } from '@tidings/core/store';
import type Database from 'better-sqlite3';
import { type Bit, bit } from './rows.js';

/** A row of `request_log`. */
interface RequestLogRow {
  request_id: string;
  project_id: string;
  method: string;
  path: string;
  status: number;
  code: string | null;
  key_prefix: string;
  mode: KeyMode;
  idempotency_key: string | null;
  recipient: string | null;
  notification_ids: string;
  created_at: number;
  duration_ms: number;
  request_body: string | null;
  request_body_truncated: Bit;
  response_body: string | null;
  response_body_truncated: Bit;
}

function entryFromRow(row: RequestLogRow): RequestLogEntry {
  return {
    requestId: row.request_id,
    projectId: row.project_id,
    method: row.method,
    path: row.path,
    status: row.status,
    code: row.code,
    keyPrefix: row.key_prefix,
    mode: row.mode,
    idempotencyKey: row.idempotency_key,
    notificationIds: JSON.parse(row.notification_ids) as string[],
    recipient: row.recipient,
    createdAt: row.created_at,
    durationMs: row.duration_ms,
    requestBody:
      row.request_body === null ? null : { text: row.request_body, truncated: row.request_body_truncated === 1 },
    responseBody:
      row.response_body === null ? null : { text: row.response_body, truncated: row.response_body_truncated === 1 },
  };
}

/** The first status and the last of each class. */
const STATUS_RANGES = { '2xx': [200, 299], '4xx': [400, 499], '5xx': [500, 599] } as const;

/** The request log (docs/api.md#request-log): one IMMEDIATE transaction per batch of entries. */
export function requestLogOperations(db: Database.Database): RequestLogStore {
  const insertEntry = db.prepare(
    `INSERT OR IGNORE INTO request_log (request_id, project_id, method, path, status, code, key_prefix, mode,
       idempotency_key, recipient, notification_ids, created_at, duration_ms,
       request_body, request_body_truncated, response_body, response_body_truncated)
     VALUES (:requestId, :projectId, :method, :path, :status, :code, :keyPrefix, :mode,
       :idempotencyKey, :recipient, :notificationIds, :createdAt, :durationMs,
       :requestBody, :requestBodyTruncated, :responseBody, :responseBodyTruncated)`,
  );
  const insertNotification = db.prepare<[string, string, string]>(
    'INSERT OR IGNORE INTO request_log_notifications (request_id, notification_id, project_id) VALUES (?, ?, ?)',
  );
  const selectEntry = db.prepare<[string, string], RequestLogRow>(
    'SELECT * FROM request_log WHERE request_id = ? AND project_id = ?',
  );
  const selectOldest = db
    .prepare<[number, number], string>(
      'SELECT request_id FROM request_log WHERE created_at < ? ORDER BY created_at, request_id LIMIT ?',
    )
    .pluck();
  const deleteEntry = db.prepare<[string]>('DELETE FROM request_log WHERE request_id = ?');
  const deleteNotifications = db.prepare<[string]>('DELETE FROM request_log_notifications WHERE request_id = ?');

  const append = db.transaction((entries: readonly RequestLogEntry[]) => {
    for (const entry of entries) {
      const inserted = insertEntry.run({
        ...entry,
        notificationIds: JSON.stringify(entry.notificationIds),
        requestBody: entry.requestBody?.text ?? null,
        requestBodyTruncated: bit(entry.requestBody?.truncated === true),
        responseBody: entry.responseBody?.text ?? null,
        responseBodyTruncated: bit(entry.responseBody?.truncated === true),
      });
      if (inserted.changes === 0) continue;
      for (const id of entry.notificationIds) insertNotification.run(entry.requestId, id, entry.projectId);
    }
  });
  const purge = db.transaction((before: number, limit: number): number => {
    const ids = selectOldest.all(before, limit);
    for (const id of ids) {
      deleteNotifications.run(id);
      deleteEntry.run(id);
    }
    return ids.length;
  });

  // One statement per combination of filters, prepared at its first use: each is planned for
  // its own index instead of one statement with every filter optional.
  const listStatements = new Map<string, Database.Statement<Record<string, unknown>, RequestLogRow>>();
  function listStatement(input: ListRequestLogInput): Database.Statement<Record<string, unknown>, RequestLogRow> {
    const conditions = ['l.project_id = :projectId'];
    let from = 'request_log l';
    if (input.startingAfter !== null) conditions.push('l.request_id < :startingAfter');
    if (input.statusClass !== null) conditions.push('l.status BETWEEN :statusFrom AND :statusTo');
    if (input.mode !== null) conditions.push('l.mode = :mode');
    const search = input.search;
    if (search !== null && 'requestId' in search) conditions.push('l.request_id = :requestId');
    if (search !== null && 'notificationId' in search) {
      from = `request_log_notifications n JOIN request_log l ON l.request_id = n.request_id`;
      conditions.push('n.project_id = :projectId AND n.notification_id = :notificationId');
    }
    if (search !== null && 'keyOrRecipient' in search) {
      conditions.push('(l.idempotency_key = :keyOrRecipient OR l.recipient = :keyOrRecipient)');
    }
    const sql = `SELECT l.* FROM ${from} WHERE ${conditions.join(' AND ')} ORDER BY l.request_id DESC LIMIT :limit`;
    let statement = listStatements.get(sql);
    if (statement === undefined) {
      statement = db.prepare<Record<string, unknown>, RequestLogRow>(sql);
      listStatements.set(sql, statement);
    }
    return statement;
  }

  return {
    async appendRequestLog(entries) {
      if (entries.length > 0) append.immediate(entries);
    },
    async listRequestLog(input) {
      const range = input.statusClass === null ? null : STATUS_RANGES[input.statusClass];
      const rows = listStatement(input).all({
        projectId: input.projectId,
        limit: input.limit + 1,
        ...(input.startingAfter === null ? {} : { startingAfter: input.startingAfter }),
        ...(range === null ? {} : { statusFrom: range[0], statusTo: range[1] }),
        ...(input.mode === null ? {} : { mode: input.mode }),
        ...input.search,
      });
      return { entries: rows.slice(0, input.limit).map(entryFromRow), hasMore: rows.length > input.limit };
    },
    async getRequestLogEntry({ projectId, requestId }) {
      const row = selectEntry.get(requestId, projectId);
      return row ? entryFromRow(row) : null;
    },
    async purgeRequestLog({ before, limit }) {
      return purge.immediate(before, limit);
    },
  };
}
