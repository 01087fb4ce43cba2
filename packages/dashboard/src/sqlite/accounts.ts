import { bit, containsPattern } from '@tidings/store-sqlite/sql';
import type { CreateAccountWithPasswordResult, DashboardAccountStore } from '../store.js';
import { type Connection, type DashboardAccountRow, dashboardAccountFromRow } from './rows.js';

/** Accounts and passwords, on the core's `accounts` table. */
export function accountOperations(db: Connection): DashboardAccountStore {
  const selectByEmail = db.prepare<[string], DashboardAccountRow>(
    'SELECT * FROM accounts WHERE email = ? ORDER BY created_at, id LIMIT 1',
  );
  const selectById = db.prepare<[string], DashboardAccountRow>('SELECT * FROM accounts WHERE id = ?');
  const selectOperatorIds = db.prepare<[], { id: string }>('SELECT id FROM accounts WHERE operator = 1 ORDER BY id');
  // SQLite's LIKE ignores the case of ASCII letters. The operators' page only: no index.
  const ACCOUNT_MATCHES = `(@pattern IS NULL OR email LIKE @pattern ESCAPE '\\' OR id LIKE @pattern ESCAPE '\\')`;
  const selectMatchingAccounts = db.prepare<
    { pattern: string | null; limit: number; offset: number },
    DashboardAccountRow
  >(`SELECT * FROM accounts WHERE ${ACCOUNT_MATCHES} ORDER BY created_at, id LIMIT @limit OFFSET @offset`);
  const countMatchingAccounts = db
    .prepare<{ pattern: string | null }, number>(`SELECT count(*) FROM accounts WHERE ${ACCOUNT_MATCHES}`)
    .pluck();
  const searchAccounts = db.transaction((query: string | null, offset: number, limit: number) => {
    const pattern = containsPattern(query);
    return {
      accounts: selectMatchingAccounts.all({ pattern, limit, offset }).map(dashboardAccountFromRow),
      total: countMatchingAccounts.get({ pattern })!,
    };
  });
  const insertAccount = db.prepare<[string, string, number, string, number, number], DashboardAccountRow>(
    `INSERT INTO accounts (id, email, verified, password_hash, operator, created_at)
     VALUES (?, ?, ?, ?, ?, ?) RETURNING *`,
  );
  const updatePassword = db.prepare<[string, string]>('UPDATE accounts SET password_hash = ? WHERE id = ?');
  const updateOperator = db.prepare<[number, string], DashboardAccountRow>(
    'UPDATE accounts SET operator = ? WHERE id = ? RETURNING *',
  );
  const updateEmail = db.prepare<[string, string]>('UPDATE accounts SET email = ? WHERE id = ?');

  const createAccountWithPassword = db.transaction(
    (input: {
      id: string;
      email: string;
      passwordHash: string;
      verified: boolean;
      operator: boolean;
      now: number;
    }): CreateAccountWithPasswordResult => {
      if (selectByEmail.get(input.email)) return { kind: 'email-taken' };
      const row = insertAccount.get(
        input.id,
        input.email,
        bit(input.verified),
        input.passwordHash,
        bit(input.operator),
        input.now,
      )!;
      return { kind: 'created', account: dashboardAccountFromRow(row) };
    },
  );
  const setAccountEmail = db.transaction((id: string, email: string): 'changed' | 'email-taken' | 'not-found' => {
    const holder = selectByEmail.get(email);
    if (holder) return holder.id === id ? 'changed' : 'email-taken';
    return updateEmail.run(email, id).changes > 0 ? 'changed' : 'not-found';
  });

  return {
    async findAccountByEmail(email) {
      const row = selectByEmail.get(email);
      return row ? dashboardAccountFromRow(row) : null;
    },
    async getDashboardAccount(id) {
      const row = selectById.get(id);
      return row ? dashboardAccountFromRow(row) : null;
    },
    async listOperatorIds() {
      return selectOperatorIds.all().map((row) => row.id);
    },
    async searchAccounts({ query, offset, limit }) {
      return searchAccounts(query, offset, limit);
    },
    async createAccountWithPassword(input) {
      return createAccountWithPassword.immediate(input);
    },
    async setAccountPassword({ id, passwordHash }) {
      return updatePassword.run(passwordHash, id).changes > 0;
    },
    async setAccountOperator({ id, operator }) {
      const row = updateOperator.get(bit(operator), id);
      return row ? dashboardAccountFromRow(row) : null;
    },
    async setAccountEmail({ id, email }) {
      return setAccountEmail.immediate(id, email);
    },
  };
}
