import type { AccountStore, CreateProjectResult } from '@tidings/core/store';
import type Database from 'better-sqlite3';
import { type AccountRow, accountFromRow, bit, type ProjectRow, projectFromRow } from './rows.js';

/** Accounts and projects. */
export function accountOperations(db: Database.Database): AccountStore {
  const insertAccount = db.prepare<[string, string, number, number], AccountRow>(
    'INSERT INTO accounts (id, email, verified, created_at) VALUES (?, ?, ?, ?) RETURNING *',
  );
  const selectAccount = db.prepare<[string], AccountRow>('SELECT * FROM accounts WHERE id = ?');
  const selectAccounts = db.prepare<[], AccountRow>('SELECT * FROM accounts ORDER BY created_at, id');
  const updateVerified = db.prepare<[number, string], AccountRow>(
    'UPDATE accounts SET verified = ? WHERE id = ? RETURNING *',
  );
  const countProjects = db.prepare<[string], number>('SELECT count(*) FROM projects WHERE account_id = ?').pluck();
  const insertProject = db.prepare<[string, string, string, number], ProjectRow>(
    'INSERT INTO projects (id, account_id, name, suspended, created_at) VALUES (?, ?, ?, 0, ?) RETURNING *',
  );
  const selectProject = db.prepare<[string], ProjectRow>('SELECT * FROM projects WHERE id = ?');
  const selectProjects = db.prepare<[string], ProjectRow>(
    'SELECT * FROM projects WHERE account_id = ? ORDER BY created_at, id',
  );
  // Suspending twice keeps the first time, reason and actor, like revoking a key.
  const updateSuspended = db.prepare<
    { id: string; suspended: number; now: number; reason: string | null; actor: string | null },
    ProjectRow
  >(
    `UPDATE projects
        SET suspended_reason = CASE WHEN @suspended = 0 THEN NULL WHEN suspended = 1 THEN suspended_reason ELSE @reason END,
            suspended_by = CASE WHEN @suspended = 0 THEN NULL WHEN suspended = 1 THEN suspended_by ELSE @actor END,
            suspended_at = CASE WHEN @suspended = 1 THEN coalesce(suspended_at, @now) ELSE NULL END,
            suspended = @suspended
      WHERE id = @id
  RETURNING *`,
  );

  const createProject = db.transaction(
    (input: { id: string; accountId: string; name: string; now: number; maxProjects: number }): CreateProjectResult => {
      const account = selectAccount.get(input.accountId);
      if (!account) return { kind: 'account-not-found' };
      if (account.verified !== 1) return { kind: 'email-not-verified' };
      if (countProjects.get(input.accountId)! >= input.maxProjects) return { kind: 'limit-reached' };
      const row = insertProject.get(input.id, input.accountId, input.name, input.now)!;
      return { kind: 'created', project: projectFromRow(row) };
    },
  );

  return {
    async createAccount({ id, email, verified, now }) {
      return accountFromRow(insertAccount.get(id, email, bit(verified), now)!);
    },
    async getAccount(id) {
      const row = selectAccount.get(id);
      return row ? accountFromRow(row) : null;
    },
    async listAccounts() {
      return selectAccounts.all().map(accountFromRow);
    },
    async setAccountVerified({ id, verified }) {
      const row = updateVerified.get(bit(verified), id);
      return row ? accountFromRow(row) : null;
    },
    async createProject(input) {
      return createProject.immediate(input);
    },
    async getProject(id) {
      const row = selectProject.get(id);
      return row ? projectFromRow(row) : null;
    },
    async listProjects(accountId) {
      return selectProjects.all(accountId).map(projectFromRow);
    },
    async setProjectSuspended({ id, suspended, now, reason = null, actor = null }) {
      const row = updateSuspended.get({ id, suspended: bit(suspended), now, reason, actor });
      return row ? projectFromRow(row) : null;
    },
  };
}
