import type { PasskeyRecord, SecondFactorStore } from '../store.js';
import type { Connection } from './rows.js';

interface PasskeyRow {
  credential_id: string;
  account_id: string;
  public_key: string;
  counter: number;
  transports: string;
  name: string;
  created_at: number;
  last_used_at: number | null;
}

function passkeyFromRow(row: PasskeyRow): PasskeyRecord {
  return {
    credentialId: row.credential_id,
    accountId: row.account_id,
    publicKey: row.public_key,
    counter: row.counter,
    transports: JSON.parse(row.transports) as string[],
    name: row.name,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

/** Passkeys (their transports kept as JSON text) and recovery codes. */
export function secondFactorOperations(db: Connection): SecondFactorStore {
  const insertPasskey = db.prepare<[string, string, string, number, string, string, number, number | null]>(
    `INSERT INTO passkeys (credential_id, account_id, public_key, counter, transports, name, created_at, last_used_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const selectPasskeys = db.prepare<[string], PasskeyRow>(
    'SELECT * FROM passkeys WHERE account_id = ? ORDER BY created_at, credential_id',
  );
  const selectPasskey = db.prepare<[string], PasskeyRow>('SELECT * FROM passkeys WHERE credential_id = ?');
  const updatePasskeyUse = db.prepare<[number, number, string]>(
    'UPDATE passkeys SET counter = ?, last_used_at = ? WHERE credential_id = ?',
  );
  const deletePasskey = db.prepare<[string, string]>('DELETE FROM passkeys WHERE account_id = ? AND credential_id = ?');
  const deleteRecoveryCodes = db.prepare<[string]>('DELETE FROM recovery_codes WHERE account_id = ?');
  const insertRecoveryCode = db.prepare<[string, string, number]>(
    'INSERT OR IGNORE INTO recovery_codes (account_id, hash, created_at) VALUES (?, ?, ?)',
  );
  const deleteRecoveryCode = db.prepare<[string, string]>(
    'DELETE FROM recovery_codes WHERE account_id = ? AND hash = ?',
  );
  const countRecoveryCodes = db.prepare<[string], { count: number }>(
    'SELECT count(*) AS count FROM recovery_codes WHERE account_id = ?',
  );

  const replaceRecoveryCodes = db.transaction((accountId: string, hashes: string[], now: number) => {
    deleteRecoveryCodes.run(accountId);
    for (const hash of hashes) insertRecoveryCode.run(accountId, hash, now);
  });

  return {
    async addPasskey(passkey) {
      insertPasskey.run(
        passkey.credentialId,
        passkey.accountId,
        passkey.publicKey,
        passkey.counter,
        JSON.stringify(passkey.transports),
        passkey.name,
        passkey.createdAt,
        passkey.lastUsedAt,
      );
    },
    async listPasskeys(accountId) {
      return selectPasskeys.all(accountId).map(passkeyFromRow);
    },
    async findPasskey(credentialId) {
      const row = selectPasskey.get(credentialId);
      return row ? passkeyFromRow(row) : null;
    },
    async usePasskey({ credentialId, counter, now }) {
      updatePasskeyUse.run(counter, now, credentialId);
    },
    async deletePasskey({ accountId, credentialId }) {
      return deletePasskey.run(accountId, credentialId).changes > 0;
    },
    async replaceRecoveryCodes({ accountId, hashes, now }) {
      replaceRecoveryCodes.immediate(accountId, hashes, now);
    },
    async useRecoveryCode({ accountId, hash }) {
      return deleteRecoveryCode.run(accountId, hash).changes > 0;
    },
    async countRecoveryCodes(accountId) {
      return countRecoveryCodes.get(accountId)?.count ?? 0;
    },
  };
}
