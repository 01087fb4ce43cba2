import type { KeyMode } from '@tidings/core';
import type { ListRequestLogInput, RequestLogEntry, RequestLogStore } from '@tidings/core/store';
import type { Pool } from 'pg';
import { run, type Sql, type Statement } from './db.js';

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
  notification_ids: string[];
  created_at: number;
  duration_ms: number;
  request_body: string | null;
  request_body_truncated: boolean;
  response_body: string | null;
  response_body_truncated: boolean;
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
    notificationIds: row.notification_ids,
    recipient: row.recipient,
    createdAt: row.created_at,
    durationMs: row.duration_ms,
    requestBody: row.request_body === null ? null : { text: row.request_body, truncated: row.request_body_truncated },
    responseBody:
      row.response_body === null ? null : { text: row.response_body, truncated: row.response_body_truncated },
  };
}

function rowOf(entry: RequestLogEntry): RequestLogRow {
  return {
    request_id: entry.requestId,
    project_id: entry.projectId,
    method: entry.method,
    path: entry.path,
    status: entry.status,
    code: entry.code,
    key_prefix: entry.keyPrefix,
    mode: entry.mode,
    idempotency_key: entry.idempotencyKey,
    recipient: entry.recipient,
    notification_ids: entry.notificationIds,
    created_at: entry.createdAt,
    duration_ms: entry.durationMs,
    request_body: entry.requestBody?.text ?? null,
    request_body_truncated: entry.requestBody?.truncated === true,
    response_body: entry.responseBody?.text ?? null,
    response_body_truncated: entry.responseBody?.truncated === true,
  };
}

/** The first status and the last of each class. */
const STATUS_RANGES = { '2xx': [200, 299], '4xx': [400, 499], '5xx': [500, 599] } as const;

/** The request log (docs/api.md#request-log): one statement per batch of entries. */
export function requestLogOperations(pool: Pool, sql: Sql): RequestLogStore {
  const { t } = sql;
  // The entries and their notifications in one statement (one transaction): the batch as JSON,
  // made rows by the table's own type.
  const append = sql.statement(
    'request_log_append',
    `WITH entries AS (
       INSERT INTO ${t('request_log')}
       SELECT * FROM json_populate_recordset(NULL::${t('request_log')}, $1::json)
       ON CONFLICT (request_id) DO NOTHING
       RETURNING request_id, project_id, notification_ids
     )
     INSERT INTO ${t('request_log_notifications')} (request_id, notification_id, project_id)
     SELECT e.request_id, n.id, e.project_id FROM entries e, unnest(e.notification_ids) AS n (id)
     ON CONFLICT DO NOTHING`,
  );
  const selectEntry = sql.statement(
    'request_log_get',
    `SELECT * FROM ${t('request_log')} WHERE request_id = $1 AND project_id = $2`,
  );
  const purge = sql.statement(
    'request_log_purge',
    `WITH gone AS (
       DELETE FROM ${t('request_log')} WHERE request_id IN (
         SELECT request_id FROM ${t('request_log')} WHERE created_at < $1 ORDER BY created_at LIMIT $2
       )
       RETURNING request_id
     ), links AS (
       DELETE FROM ${t('request_log_notifications')} WHERE request_id IN (SELECT request_id FROM gone)
     )
     SELECT count(*)::int8 AS deleted FROM gone`,
  );

  // One statement per combination of filters, named by it: each is planned for its own index
  // instead of one statement with every filter optional.
  const listStatements = new Map<string, Statement>();
  function listQuery(input: ListRequestLogInput): { statement: Statement; values: unknown[] } {
    const values: unknown[] = [input.projectId];
    const conditions = ['l.project_id = $1'];
    const flags: string[] = [];
    let from = `${t('request_log')} l`;
    const bind = (value: unknown) => {
      values.push(value);
      return `$${values.length}`;
    };
    if (input.startingAfter !== null) {
      conditions.push(`l.request_id < ${bind(input.startingAfter)}`);
      flags.push('after');
    }
    if (input.statusClass !== null) {
      const [first, last] = STATUS_RANGES[input.statusClass];
      conditions.push(`l.status BETWEEN ${bind(first)} AND ${bind(last)}`);
      flags.push('status');
    }
    if (input.mode !== null) {
      conditions.push(`l.mode = ${bind(input.mode)}`);
      flags.push('mode');
    }
    const optional = [
      ['code', 'l.code', input.code],
      ['key', 'l.key_prefix', input.keyPrefix],
      ['recipient', 'l.recipient', input.recipient],
    ] as const;
    for (const [flag, column, value] of optional) {
      if (value == null) continue;
      conditions.push(`${column} = ${bind(value)}`);
      flags.push(flag);
    }
    if (input.createdFrom != null) {
      conditions.push(`l.created_at >= ${bind(input.createdFrom)}`);
      flags.push('from');
    }
    if (input.createdBefore != null) {
      conditions.push(`l.created_at < ${bind(input.createdBefore)}`);
      flags.push('to');
    }
    const { search } = input;
    if (search !== null && 'requestId' in search) {
      conditions.push(`l.request_id = ${bind(search.requestId)}`);
      flags.push('request');
    } else if (search !== null && 'notificationId' in search) {
      from = `${t('request_log_notifications')} n JOIN ${t('request_log')} l ON l.request_id = n.request_id`;
      conditions.push(`n.project_id = $1 AND n.notification_id = ${bind(search.notificationId)}`);
      flags.push('notification');
    } else if (search !== null) {
      const text = bind(search.keyOrRecipient);
      conditions.push(`(l.idempotency_key = ${text} OR l.recipient = ${text})`);
      flags.push('text');
    }
    const limit = bind(input.limit + 1);
    const name = `request_log_list_${flags.join('_') || 'all'}`;
    let statement = listStatements.get(name);
    if (statement === undefined) {
      statement = sql.statement(
        name,
        `SELECT l.* FROM ${from} WHERE ${conditions.join(' AND ')} ORDER BY l.request_id DESC LIMIT ${limit}`,
      );
      listStatements.set(name, statement);
    }
    return { statement, values };
  }

  return {
    async appendRequestLog(entries) {
      if (entries.length > 0) await run(pool, append, [JSON.stringify(entries.map(rowOf))]);
    },
    async listRequestLog(input) {
      const { statement, values } = listQuery(input);
      const rows = await run<RequestLogRow>(pool, statement, values);
      return { entries: rows.slice(0, input.limit).map(entryFromRow), hasMore: rows.length > input.limit };
    },
    async getRequestLogEntry({ projectId, requestId }) {
      const [row] = await run<RequestLogRow>(pool, selectEntry, [requestId, projectId]);
      return row ? entryFromRow(row) : null;
    },
    async purgeRequestLog({ before, limit }) {
      const [row] = await run<{ deleted: number }>(pool, purge, [before, limit]);
      return row?.deleted ?? 0;
    },
  };
}
