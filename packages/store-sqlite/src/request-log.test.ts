import type { ListRequestLogInput } from '@tidings/core/store';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { REQUEST_LOG_SCHEMA, requestLogListSql } from './request-log.js';

const db = new Database(':memory:');
db.exec(REQUEST_LOG_SCHEMA);
afterAll(() => db.close());

const VALUES = {
  projectId: 'proj_1',
  startingAfter: 'req_9',
  statusFrom: 400,
  statusTo: 499,
  mode: 'live',
  requestId: 'req_1',
  notificationId: 'ntf_1',
  keyOrRecipient: 'order-7',
  limit: 51,
};

/** How SQLite answers the page with these filters: each step's detail. */
function plan(input: Partial<ListRequestLogInput>): string[] {
  const sql = requestLogListSql({
    projectId: 'proj_1',
    statusClass: null,
    mode: null,
    search: null,
    limit: 50,
    startingAfter: 'req_9',
    ...input,
  });
  const named = Object.fromEntries(Object.entries(VALUES).filter(([name]) => sql.includes(`:${name}`)));
  return db
    .prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .all(named)
    .map((row) => (row as { detail: string }).detail);
}

describe('the request log’s pages on SQLite', () => {
  it('read a project’s entries in request id order through its index, filtered, with no sort', () => {
    expect(plan({})).toEqual(['SEARCH l USING INDEX request_log_by_project (project_id=? AND request_id<?)']);
    expect(plan({ statusClass: '4xx', mode: 'live' })).toEqual([
      'SEARCH l USING INDEX request_log_by_project (project_id=? AND request_id<?)',
    ]);
    expect(plan({ search: { requestId: 'req_1' } })).toEqual([
      'SEARCH l USING INDEX request_log_by_project (project_id=? AND request_id=?)',
    ]);
  });

  it('find a notification’s requests by the row’s own column and by the side rows, never reading the whole project', () => {
    expect(plan({ search: { notificationId: 'ntf_1' } })).toEqual([
      'MERGE (UNION ALL)',
      'LEFT',
      'SEARCH l USING INDEX request_log_by_notification (project_id=? AND notification_id=? AND request_id<?)',
      'RIGHT',
      'SEARCH n USING COVERING INDEX request_log_notifications_by_notification (project_id=? AND notification_id=? AND request_id<?)',
      'SEARCH l USING INDEX request_log_by_project (project_id=? AND request_id=?)',
      // The side rows of one notification are few: a request that marks several at once.
      'USE TEMP B-TREE FOR ORDER BY',
    ]);
  });

  it('find an Idempotency-Key or a recipient through an index each', () => {
    expect(plan({ search: { keyOrRecipient: 'order-7' }, startingAfter: null })).toEqual([
      'MERGE (UNION ALL)',
      'LEFT',
      'SEARCH l USING INDEX request_log_by_idempotency_key (project_id=? AND idempotency_key=?)',
      'RIGHT',
      'SEARCH l USING INDEX request_log_by_recipient (project_id=? AND recipient=?)',
    ]);
  });
});
