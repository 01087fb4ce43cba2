import type { IdempotencyClaim, Store } from '@tidings/core';
import type Database from 'better-sqlite3';

type IdempotencyOperations = Pick<Store, 'claimIdempotencyKey' | 'releaseIdempotencyKey'>;

interface ClaimInput {
  projectId: string;
  key: string;
  fingerprint: string;
  now: number;
  expiresAt: number;
  lockExpiresAt: number;
}

interface IdempotencyRow {
  fingerprint: string;
  state: 'running' | 'completed';
  response_status: number | null;
  response_body: string | null;
  expires_at: number;
  lock_expires_at: number;
}

/**
 * Idempotency keys. A record is `running` from its claim until `createNotification` completes
 * it in its own transaction (see notifications.ts); only completed records are replayed.
 */
export function idempotencyOperations(db: Database.Database): IdempotencyOperations {
  const select = db.prepare<[string, string], IdempotencyRow>(
    `SELECT fingerprint, state, response_status, response_body, expires_at, lock_expires_at
       FROM idempotency_keys WHERE project_id = ? AND key = ?`,
  );
  const upsertRunning = db.prepare<ClaimInput>(
    `INSERT INTO idempotency_keys
       (project_id, key, fingerprint, state, created_at, expires_at, lock_expires_at)
     VALUES (@projectId, @key, @fingerprint, 'running', @now, @expiresAt, @lockExpiresAt)
     ON CONFLICT (project_id, key) DO UPDATE SET
       fingerprint = excluded.fingerprint,
       state = 'running',
       response_status = NULL,
       response_body = NULL,
       created_at = excluded.created_at,
       expires_at = excluded.expires_at,
       lock_expires_at = excluded.lock_expires_at`,
  );
  // A completed record is never released: its response was acknowledged and must replay.
  const deleteRunning = db.prepare<[string, string]>(
    "DELETE FROM idempotency_keys WHERE project_id = ? AND key = ? AND state = 'running'",
  );

  const claim = db.transaction((input: ClaimInput): IdempotencyClaim => {
    const row = select.get(input.projectId, input.key);
    const free = !row || row.expires_at <= input.now || (row.state === 'running' && row.lock_expires_at <= input.now);
    if (free) {
      upsertRunning.run(input);
      return { kind: 'claimed' };
    }
    // A running claim answers in-progress whatever the fingerprint: whether it ends in a
    // response to mismatch, or fails and frees the key, is not known yet.
    if (row.state === 'running') return { kind: 'in-progress' };
    if (row.fingerprint !== input.fingerprint) return { kind: 'mismatch' };
    return { kind: 'replay', status: row.response_status!, body: row.response_body! };
  });

  return {
    async claimIdempotencyKey(input) {
      return claim.immediate(input);
    },
    async releaseIdempotencyKey({ projectId, key }) {
      deleteRunning.run(projectId, key);
    },
  };
}
