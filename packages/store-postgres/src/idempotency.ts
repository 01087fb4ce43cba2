import type { IdempotencyLookup, IdempotencyStore } from '@tidings/core/store';
import type { Pool } from 'pg';
import { run, type Sql } from './db.js';

/** A stored result under an idempotency key. */
export interface IdempotencyRow {
  fingerprint: string;
  response_status: number;
  response_body: string;
}

/** The answer a stored, unexpired result gives to a request with `fingerprint`. */
export function idempotencyOutcome(
  row: IdempotencyRow,
  fingerprint: string,
): Exclude<IdempotencyLookup, { kind: 'none' }> {
  if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
  return { kind: 'replay', status: row.response_status, body: row.response_body };
}

/**
 * The read-only fast path of idempotency keys. A result is only ever written by the send that
 * produced it, in that send's transaction (see send-statements.ts): what is read here committed.
 */
export function idempotencyOperations(pool: Pool, sql: Sql): IdempotencyStore {
  const { t, statement } = sql;
  const select = statement(
    'select_idempotency',
    `SELECT fingerprint, response_status, response_body FROM ${t('idempotency_keys')}
      WHERE project_id = $1 AND key = $2 AND expires_at > $3`,
  );
  return {
    async findIdempotentResponse({ projectId, key, fingerprint, now }) {
      const [row] = await run<IdempotencyRow>(pool, select, [projectId, key, now]);
      return row ? idempotencyOutcome(row, fingerprint) : { kind: 'none' };
    },
  };
}
