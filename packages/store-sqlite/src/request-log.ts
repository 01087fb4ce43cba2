import type { KeyMode } from '@tidings/core';
import type { ListRequestLogInput, RequestLogEntry, RequestLogStore } from '@tidings/core/store';
import type Database from 'better-sqlite3';
import { type Bit, bit } from './rows.js';

/** A row of `request_log`. */
interface RequestLogRow {
  seq: number;
  request_id: string;
  project_id: string;
  created_at: number;
  status: number;
  method: string;
  path: string;
  code: string | null;
  key_prefix: string;
  mode: KeyMode;
  idempotency_key: string | null;
  recipient: string | null;
  notification_id: string | null;
  /** The notifications after the first, as a JSON array; null when there are none. */
  more_notification_ids: string | null;
  duration_ms: number;
  request_body: string | null;
  request_body_truncated: Bit;
  response_body: string | null;
  response_body_truncated: Bit;
}

function notificationIdsOf(row: RequestLogRow): string[] {
  if (row.notification_id === null) return [];
  if (row.more_notification_ids === null) return [row.notification_id];
  return [row.notification_id, ...(JSON.parse(row.more_notification_ids) as string[])];
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
    notificationIds: notificationIdsOf(row),
    recipient: row.recipient,
    createdAt: row.created_at,
    durationMs: row.duration_ms,
    requestBody:
      row.request_body === null ? null : { text: row.request_body, truncated: row.request_body_truncated === 1 },
    responseBody:
      row.response_body === null ? null : { text: row.response_body, truncated: row.response_body_truncated === 1 },
  };
}

/**
 * The query of a page of the log with these filters, its values named (`:projectId`, `:limit`…).
 * Each combination of filters is a statement of its own, planned for its own index, instead of
 * one statement with every filter optional. A search that two indexes answer (a notification: the
 * row's own column or a further one's side row; a text: the key or the recipient) is two selects,
 * each an index lookup in request id order, whose rows never overlap, merged: one OR would be
 * answered by reading every entry of the project.
 */
export function requestLogListSql(input: ListRequestLogInput): string {
  const filters = ['l.project_id = :projectId'];
  if (input.startingAfter !== null) filters.push('l.request_id < :startingAfter');
  if (input.statusClass !== null) filters.push('l.status BETWEEN :statusFrom AND :statusTo');
  if (input.mode !== null) filters.push('l.mode = :mode');
  const select = (from: string, ...conditions: string[]) =>
    `SELECT l.* FROM ${from} WHERE ${[...conditions, ...filters].join(' AND ')}`;
  const { search } = input;
  let selects: string[];
  if (search === null) {
    selects = [select('request_log l')];
  } else if ('requestId' in search) {
    selects = [select('request_log l', 'l.request_id = :requestId')];
  } else if ('notificationId' in search) {
    selects = [
      select('request_log l', 'l.notification_id = :notificationId'),
      // CROSS JOIN keeps the side rows the outer loop: they are few, the project's entries many.
      select(
        'request_log_notifications n CROSS JOIN request_log l ON l.project_id = n.project_id AND l.request_id = n.request_id',
        'n.project_id = :projectId AND n.notification_id = :notificationId',
      ),
    ];
  } else {
    selects = [
      select('request_log l', 'l.idempotency_key = :keyOrRecipient'),
      select('request_log l', 'l.recipient = :keyOrRecipient', 'l.idempotency_key IS NOT :keyOrRecipient'),
    ];
  }
  return `${selects.join(' UNION ALL ')} ORDER BY request_id DESC LIMIT :limit`;
}

/** The first status and the last of each class. */
const STATUS_RANGES = { '2xx': [200, 299], '4xx': [400, 499], '5xx': [500, 599] } as const;

/**
 * The request log (docs/api.md#request-log): one IMMEDIATE transaction per batch of entries,
 * each entry one row (its values bound by position: binding them by name from an object costs
 * more than the insert) and, for a request naming several notifications, a row for each after
 * the first.
 */
export function requestLogOperations(db: Database.Database): RequestLogStore {
  const insertEntry = db.prepare(
    `INSERT OR IGNORE INTO request_log (request_id, project_id, created_at, status, method, path, code, key_prefix,
       mode, idempotency_key, recipient, notification_id, more_notification_ids, duration_ms,
       request_body, request_body_truncated, response_body, response_body_truncated)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertNotification = db.prepare<[string, string, string]>(
    'INSERT OR IGNORE INTO request_log_notifications (request_id, notification_id, project_id) VALUES (?, ?, ?)',
  );
  const selectEntry = db.prepare<[string, string], RequestLogRow>(
    'SELECT * FROM request_log WHERE project_id = ? AND request_id = ?',
  );
  // Oldest written first: the rowid is the order of writing, close to the order of creation.
  const selectOldest = db.prepare<[number], Pick<RequestLogRow, 'seq' | 'created_at'>>(
    'SELECT seq, created_at FROM request_log ORDER BY seq LIMIT ?',
  );
  const deleteUpTo = db.prepare<[number]>(
    'DELETE FROM request_log_notifications WHERE request_id IN (SELECT request_id FROM request_log WHERE seq <= ?)',
  );
  const deleteEntries = db.prepare<[number]>('DELETE FROM request_log WHERE seq <= ?');

  const append = db.transaction((entries: readonly RequestLogEntry[]) => {
    for (const entry of entries) {
      const [first, ...more] = entry.notificationIds;
      const inserted = insertEntry.run(
        entry.requestId,
        entry.projectId,
        entry.createdAt,
        entry.status,
        entry.method,
        entry.path,
        entry.code,
        entry.keyPrefix,
        entry.mode,
        entry.idempotencyKey,
        entry.recipient,
        first ?? null,
        more.length === 0 ? null : JSON.stringify(more),
        entry.durationMs,
        entry.requestBody?.text ?? null,
        bit(entry.requestBody?.truncated === true),
        entry.responseBody?.text ?? null,
        bit(entry.responseBody?.truncated === true),
      );
      if (inserted.changes === 0) continue;
      for (const id of more) insertNotification.run(entry.requestId, id, entry.projectId);
    }
  });
  // The oldest entries in the order they were written, up to the first made at `before` or later.
  const purge = db.transaction((before: number, limit: number): number => {
    let count = 0;
    let last = 0;
    for (const row of selectOldest.iterate(limit)) {
      if (row.created_at >= before) break;
      count++;
      last = row.seq;
    }
    if (count > 0) {
      deleteUpTo.run(last);
      deleteEntries.run(last);
    }
    return count;
  });

  // One statement per combination of filters, prepared at its first use.
  const listStatements = new Map<string, Database.Statement<Record<string, unknown>, RequestLogRow>>();
  function listStatement(input: ListRequestLogInput): Database.Statement<Record<string, unknown>, RequestLogRow> {
    const sql = requestLogListSql(input);
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
      const row = selectEntry.get(projectId, requestId);
      return row ? entryFromRow(row) : null;
    },
    async purgeRequestLog({ before, limit }) {
      return purge.immediate(before, limit);
    },
  };
}
