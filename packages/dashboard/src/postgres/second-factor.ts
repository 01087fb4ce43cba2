import { run, type Sql, transaction } from '@tidings/store-postgres/sql';
import type { PasskeyRecord, SecondFactorStore } from '../store.js';
import { dashboardStatement, type Pool } from './rows.js';

/** A passkey's columns as its record. */
const PASSKEY = `credential_id AS "credentialId", account_id AS "accountId", public_key AS "publicKey", counter,
    transports, name, created_at AS "createdAt", last_used_at AS "lastUsedAt"`;

/** Passkeys (their transports a text array) and recovery codes. */
export function secondFactorOperations(pool: Pool, sql: Sql): SecondFactorStore {
  const { t } = sql;
  const statement = (name: string, text: string) => dashboardStatement(sql, name, text);
  const insertPasskey = statement(
    'insert_passkey',
    `INSERT INTO ${t('passkeys')} (credential_id, account_id, public_key, counter, transports, name, created_at, last_used_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
  );
  const selectPasskeys = statement(
    'select_passkeys',
    `SELECT ${PASSKEY} FROM ${t('passkeys')} WHERE account_id = $1 ORDER BY created_at, credential_id`,
  );
  const selectPasskey = statement('select_passkey', `SELECT ${PASSKEY} FROM ${t('passkeys')} WHERE credential_id = $1`);
  const updatePasskeyUse = statement(
    'update_passkey_use',
    `UPDATE ${t('passkeys')} SET counter = $2, last_used_at = $3 WHERE credential_id = $1`,
  );
  const deletePasskey = statement(
    'delete_passkey',
    `DELETE FROM ${t('passkeys')} WHERE account_id = $1 AND credential_id = $2 RETURNING credential_id`,
  );
  const deleteRecoveryCodes = statement(
    'delete_recovery_codes',
    `DELETE FROM ${t('recovery_codes')} WHERE account_id = $1`,
  );
  const insertRecoveryCodes = statement(
    'insert_recovery_codes',
    `INSERT INTO ${t('recovery_codes')} (account_id, hash, created_at)
     SELECT $1, hash, $3 FROM unnest($2::text[]) AS hash ON CONFLICT DO NOTHING`,
  );
  const deleteRecoveryCode = statement(
    'delete_recovery_code',
    `DELETE FROM ${t('recovery_codes')} WHERE account_id = $1 AND hash = $2 RETURNING hash`,
  );
  const countRecoveryCodes = statement(
    'count_recovery_codes',
    `SELECT count(*)::int8 AS count FROM ${t('recovery_codes')} WHERE account_id = $1`,
  );

  return {
    async addPasskey(passkey) {
      await run(pool, insertPasskey, [
        passkey.credentialId,
        passkey.accountId,
        passkey.publicKey,
        passkey.counter,
        passkey.transports,
        passkey.name,
        passkey.createdAt,
        passkey.lastUsedAt,
      ]);
    },
    async listPasskeys(accountId) {
      return run<PasskeyRecord>(pool, selectPasskeys, [accountId]);
    },
    async findPasskey(credentialId) {
      const [row] = await run<PasskeyRecord>(pool, selectPasskey, [credentialId]);
      return row ?? null;
    },
    async usePasskey({ credentialId, counter, now }) {
      await run(pool, updatePasskeyUse, [credentialId, counter, now]);
    },
    async deletePasskey({ accountId, credentialId }) {
      return (await run(pool, deletePasskey, [accountId, credentialId])).length > 0;
    },
    async replaceRecoveryCodes({ accountId, hashes, now }) {
      await transaction(pool, async (client) => {
        await run(client, deleteRecoveryCodes, [accountId]);
        if (hashes.length > 0) await run(client, insertRecoveryCodes, [accountId, hashes, now]);
      });
    },
    async useRecoveryCode({ accountId, hash }) {
      return (await run(pool, deleteRecoveryCode, [accountId, hash])).length > 0;
    },
    async countRecoveryCodes(accountId) {
      const [row] = await run<{ count: number }>(pool, countRecoveryCodes, [accountId]);
      return row?.count ?? 0;
    },
  };
}
