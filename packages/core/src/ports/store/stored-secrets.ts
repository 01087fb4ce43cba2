/** The tables that hold secrets Tidings must keep usable (and so seals rather than hashes). */
export type StoredSecretTable = 'vapid_keys' | 'webhook_endpoints';

/** A column that holds such a secret: an endpoint's `secret` and `previous_secret`, the VAPID `private_key`. */
export type StoredSecretColumn = 'secret' | 'previous_secret' | 'private_key';

/** One stored secret, as it is in its row (sealed or not). */
export interface StoredSecret {
  table: StoredSecretTable;
  /** The row's id (`'1'` for the deployment's one VAPID row). */
  id: string;
  /** The row's project, or null for a secret of the deployment. */
  projectId: string | null;
  column: StoredSecretColumn;
  value: string;
}

/** Where a listing of stored secrets goes on from: the last row of the page before. */
export interface StoredSecretCursor {
  table: StoredSecretTable;
  id: string;
}

/**
 * The secrets of every table that holds one, read and rewritten without knowing what they are:
 * the core seals, re-seals and checks them (docs/deploy.md#secrets-at-rest).
 */
export interface StoredSecretStore {
  /**
   * The stored secrets of up to `limit` rows after `after` (every row when null), in the order of
   * table (`vapid_keys`, then `webhook_endpoints`) and id; an empty column is left out.
   */
  listStoredSecrets(input: { after: StoredSecretCursor | null; limit: number }): Promise<StoredSecret[]>;
  /**
   * Writes `value` into the column of the row only while it still holds `expected` (another
   * process may have rolled or rotated it since it was read). False when it did not.
   */
  replaceStoredSecret(input: {
    table: StoredSecretTable;
    id: string;
    column: StoredSecretColumn;
    expected: string;
    value: string;
  }): Promise<boolean>;
}
