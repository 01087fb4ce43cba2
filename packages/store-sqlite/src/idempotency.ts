import type { IdempotencyLookup, IdempotencyStore } from '@tidings/core/store';
import type Database from 'better-sqlite3';

/** A stored result of a send, as the idempotency check reads it. */
export interface IdempotencyRow {
  fingerprint: string;
  response_status: number;
  response_body: string;
  expires_at: number;
}

/** The columns {@link IdempotencyRow} reads. */
export const IDEMPOTENCY_COLUMNS = 'fingerprint, response_status, response_body, expires_at';

/** What a stored result means for a request with `fingerprint` at `now`. */
export function idempotencyOutcome(
  row: IdempotencyRow | undefined,
  fingerprint: string,
  now: number,
): IdempotencyLookup {
  if (!row || row.expires_at <= now) return { kind: 'none' };
  if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
  return { kind: 'replay', status: row.response_status, body: row.response_body };
}

/**
 * Idempotency keys. A record exists only once a send succeeded: `createNotification` checks and
 * writes it in the send's own transaction (see send-statements.ts), so a process that dies in the
 * middle of a request leaves nothing that could hold the key.
 */
export function idempotencyOperations(db: Database.Database): IdempotencyStore {
  const select = db.prepare<[string, string], IdempotencyRow>(
    `SELECT ${IDEMPOTENCY_COLUMNS} FROM idempotency_keys WHERE project_id = ? AND key = ?`,
  );
  return {
    async findIdempotentResponse({ projectId, key, fingerprint, now }) {
      return idempotencyOutcome(select.get(projectId, key), fingerprint, now);
    },
  };
}
