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
  if (input.code != null) filters.push('l.code = :code');
  if (input.keyPrefix != null) filters.push('l.key_prefix = :keyPrefix');
  if (input.recipient != null) filters.push('l.recipient = :recipient');
  if (input.createdFrom != null) filters.push('l.created_at >= :createdFrom');
  if (input.createdBefore != null) filters.push('l.created_at < :createdBefore');
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
 * The request log's tables as they are now. With a database file they are a file of their own
 * beside it (`requestLogPath`), written by a thread of its own (request-log-file.ts); an
 * in-memory database holds them itself. The rowid is the order of writing, which the purge
 * follows; the request id is unique within its project's index, which also serves the listing;
 * the first notification a request concerns is a column of its own row with an index, and only
 * the further ones of a request that names several (a mark of inbox items) are rows of
 * `request_log_notifications`.
 */
export const REQUEST_LOG_SCHEMA = `
  CREATE TABLE request_log (
    seq INTEGER PRIMARY KEY,
    request_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    status INTEGER NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    code TEXT,
    key_prefix TEXT NOT NULL,
    mode TEXT NOT NULL CHECK (mode IN ('live', 'test')),
    idempotency_key TEXT,
    recipient TEXT,
    notification_id TEXT,
    more_notification_ids TEXT,
    duration_ms REAL NOT NULL,
    request_body TEXT,
    request_body_truncated INTEGER NOT NULL CHECK (request_body_truncated IN (0, 1)),
    response_body TEXT,
    response_body_truncated INTEGER NOT NULL CHECK (response_body_truncated IN (0, 1))
  );
  CREATE UNIQUE INDEX request_log_by_project ON request_log (project_id, request_id);
  CREATE INDEX request_log_by_notification ON request_log (project_id, notification_id, request_id)
    WHERE notification_id IS NOT NULL;
  CREATE INDEX request_log_by_idempotency_key ON request_log (project_id, idempotency_key, request_id)
    WHERE idempotency_key IS NOT NULL;
  CREATE INDEX request_log_by_recipient ON request_log (project_id, recipient, request_id) WHERE recipient IS NOT NULL;
  CREATE TABLE request_log_notifications (
    request_id TEXT NOT NULL,
    notification_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    PRIMARY KEY (request_id, notification_id)
  ) WITHOUT ROWID;
  CREATE INDEX request_log_notifications_by_notification ON request_log_notifications (project_id, notification_id, request_id);
`;

/** The columns an entry is written to, in the order of {@link entryRow}'s values. */
export const REQUEST_LOG_COLUMNS = `request_id, project_id, created_at, status, method, path, code, key_prefix,
  mode, idempotency_key, recipient, notification_id, more_notification_ids, duration_ms,
  request_body, request_body_truncated, response_body, response_body_truncated`;

/**
 * The request log's writes, each one statement; the thread that writes a log file is given them
 * as they are, so that both writers run the same statements.
 */
export const REQUEST_LOG_WRITES = {
  insertEntry: `INSERT OR IGNORE INTO request_log (${REQUEST_LOG_COLUMNS})
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  insertNotification:
    'INSERT OR IGNORE INTO request_log_notifications (request_id, notification_id, project_id) VALUES (?, ?, ?)',
  // Where a purge ends, given `limit` then `before`: of the `limit` oldest written (the rowid is
  // the order of writing, close to the order of creation), those before the first made at
  // `before` or later; the last one's rowid and how many they are.
  selectPurgeEnd: `WITH oldest AS (SELECT seq, created_at FROM request_log ORDER BY seq LIMIT ?)
    SELECT max(seq) AS last, count(*) AS count FROM oldest
     WHERE seq < coalesce((SELECT min(seq) FROM oldest WHERE created_at >= ?), 9223372036854775807)`,
  deleteNotificationsUpTo:
    'DELETE FROM request_log_notifications WHERE request_id IN (SELECT request_id FROM request_log WHERE seq <= ?)',
  deleteEntriesUpTo: 'DELETE FROM request_log WHERE seq <= ?',
  forgetProject: [
    'DELETE FROM request_log_notifications WHERE project_id = ?',
    'DELETE FROM request_log WHERE project_id = ?',
  ],
} as const;

/**
 * An entry as it is written: its values by position, in the order of {@link REQUEST_LOG_COLUMNS}
 * (binding them by name from an object costs more than the insert), and the notifications it
 * concerns after the first, each a row of `request_log_notifications`.
 */
export type RequestLogRowValues = [values: unknown[], more: string[]];

export function entryRow(entry: RequestLogEntry): RequestLogRowValues {
  const [first, ...more] = entry.notificationIds;
  return [
    [
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
    ],
    more,
  ];
}

/** The request log's writes where they run: the store's own connection, or a thread of their own. */
export interface RequestLogWriter {
  /** Adds the entries in one IMMEDIATE transaction; one whose request id is there already is ignored. */
  append(rows: readonly RequestLogRowValues[]): Promise<void>;
  /** Deletes at most `limit` entries made before `before`, in the order written; returns how many. */
  purge(before: number, limit: number): Promise<number>;
  /** Deletes every entry of these projects (deleted ones). */
  forgetProjects(projectIds: readonly string[]): Promise<void>;
  /** Writes what it was given and lets go of its connection. */
  close(): Promise<void>;
}

/**
 * The writes on the store's own connection, for an in-memory database: one IMMEDIATE
 * transaction per batch of entries, each entry one row and, for a request naming several
 * notifications, a row for each after the first.
 */
export function requestLogWritesOn(db: Database.Database): RequestLogWriter {
  const insertEntry = db.prepare(REQUEST_LOG_WRITES.insertEntry);
  const insertNotification = db.prepare<[string, string, string]>(REQUEST_LOG_WRITES.insertNotification);
  const selectPurgeEnd = db.prepare<[number, number], { last: number | null; count: number }>(
    REQUEST_LOG_WRITES.selectPurgeEnd,
  );
  const deleteNotificationsUpTo = db.prepare<[number]>(REQUEST_LOG_WRITES.deleteNotificationsUpTo);
  const deleteEntriesUpTo = db.prepare<[number]>(REQUEST_LOG_WRITES.deleteEntriesUpTo);
  const forgetProject = REQUEST_LOG_WRITES.forgetProject.map((sql) => db.prepare<[string]>(sql));

  const append = db.transaction((rows: readonly RequestLogRowValues[]) => {
    for (const [values, more] of rows) {
      if (insertEntry.run(values).changes === 0) continue;
      for (const id of more) insertNotification.run(values[0] as string, id, values[1] as string);
    }
  });
  const purge = db.transaction((before: number, limit: number): number => {
    const { last, count } = selectPurgeEnd.get(limit, before)!;
    if (last !== null) {
      deleteNotificationsUpTo.run(last);
      deleteEntriesUpTo.run(last);
    }
    return count;
  });
  const forget = db.transaction((projectIds: readonly string[]) => {
    for (const projectId of projectIds) for (const statement of forgetProject) statement.run(projectId);
  });
  return {
    async append(rows) {
      if (rows.length > 0) append.immediate(rows);
    },
    async purge(before, limit) {
      return purge.immediate(before, limit);
    },
    async forgetProjects(projectIds) {
      if (projectIds.length > 0) forget.immediate(projectIds);
    },
    async close() {},
  };
}

/**
 * The request log port (docs/api.md#request-log): its reads on `db` (the store's connection, or
 * one of the main thread's on the log's file: a reader never waits for the writing thread), its
 * writes through `writer`.
 */
export function requestLogOperations(db: Database.Database, writer: RequestLogWriter): RequestLogStore {
  const selectEntry = db.prepare<[string, string], RequestLogRow>(
    'SELECT * FROM request_log WHERE project_id = ? AND request_id = ?',
  );

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
    appendRequestLog(entries) {
      return writer.append(entries.map(entryRow));
    },
    async listRequestLog(input) {
      const range = input.statusClass === null ? null : STATUS_RANGES[input.statusClass];
      const rows = listStatement(input).all({
        projectId: input.projectId,
        limit: input.limit + 1,
        ...(input.startingAfter === null ? {} : { startingAfter: input.startingAfter }),
        ...(range === null ? {} : { statusFrom: range[0], statusTo: range[1] }),
        ...(input.mode === null ? {} : { mode: input.mode }),
        ...(input.code == null ? {} : { code: input.code }),
        ...(input.keyPrefix == null ? {} : { keyPrefix: input.keyPrefix }),
        ...(input.recipient == null ? {} : { recipient: input.recipient }),
        ...(input.createdFrom == null ? {} : { createdFrom: input.createdFrom }),
        ...(input.createdBefore == null ? {} : { createdBefore: input.createdBefore }),
        ...input.search,
      });
      return { entries: rows.slice(0, input.limit).map(entryFromRow), hasMore: rows.length > input.limit };
    },
    async getRequestLogEntry({ projectId, requestId }) {
      const row = selectEntry.get(projectId, requestId);
      return row ? entryFromRow(row) : null;
    },
    purgeRequestLog({ before, limit }) {
      return writer.purge(before, limit);
    },
  };
}
