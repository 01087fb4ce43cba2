import { run, type Sql } from '@tidings/store-postgres/sql';
import type { PendingSignInRecord, PendingSignInStore } from '../store.js';
import { dashboardStatement, type Pool } from './rows.js';

/** A pending sign-in's columns as its record. */
const PENDING = 'account_id AS "accountId", next, created_at AS "createdAt", expires_at AS "expiresAt"';

/** Pending sign-ins and WebAuthn challenges: each taken (deleted) by its first use. */
export function pendingSignInOperations(pool: Pool, sql: Sql): PendingSignInStore {
  const { t } = sql;
  const statement = (name: string, text: string) => dashboardStatement(sql, name, text);
  const insertPending = statement(
    'insert_pending_sign_in',
    `INSERT INTO ${t('pending_sign_ins')} (hash, account_id, next, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
  );
  const selectPending = statement(
    'select_pending_sign_in',
    `SELECT ${PENDING} FROM ${t('pending_sign_ins')} WHERE hash = $1 AND expires_at > $2`,
  );
  // One statement: of two concurrent uses, only the one whose delete found the row answers it.
  const takePending = statement(
    'take_pending_sign_in',
    `DELETE FROM ${t('pending_sign_ins')} WHERE hash = $1 RETURNING ${PENDING}`,
  );
  const upsertChallenge = statement(
    'upsert_webauthn_challenge',
    `INSERT INTO ${t('webauthn_challenges')} (key, challenge, expires_at) VALUES ($1, $2, $3)
     ON CONFLICT (key) DO UPDATE SET challenge = excluded.challenge, expires_at = excluded.expires_at`,
  );
  const takeChallenge = statement(
    'take_webauthn_challenge',
    `DELETE FROM ${t('webauthn_challenges')} WHERE key = $1 RETURNING challenge, expires_at AS "expiresAt"`,
  );

  return {
    async createPendingSignIn({ hash, accountId, next, createdAt, expiresAt }) {
      await run(pool, insertPending, [hash, accountId, next, createdAt, expiresAt]);
    },
    async findPendingSignIn({ hash, now }) {
      const [row] = await run<PendingSignInRecord>(pool, selectPending, [hash, now]);
      return row ?? null;
    },
    async takePendingSignIn({ hash, now }) {
      const [row] = await run<PendingSignInRecord>(pool, takePending, [hash]);
      return row && row.expiresAt > now ? row : null;
    },
    async putWebAuthnChallenge({ key, challenge, expiresAt }) {
      await run(pool, upsertChallenge, [key, challenge, expiresAt]);
    },
    async takeWebAuthnChallenge({ key, now }) {
      const [row] = await run<{ challenge: string; expiresAt: number }>(pool, takeChallenge, [key]);
      return row && row.expiresAt > now ? row.challenge : null;
    },
  };
}
