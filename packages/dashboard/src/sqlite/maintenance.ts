import type { DashboardMaintenanceStore, PurgedDashboardData } from '../store.js';
import type { Connection } from './rows.js';

/** The purge of what expired, and the deletion of what the dashboard keeps of an account. */
export function maintenanceOperations(db: Connection): DashboardMaintenanceStore {
  const purgeSessions = db.prepare<[number, number]>(
    'DELETE FROM sessions WHERE idle_expires_at <= ? OR absolute_expires_at <= ?',
  );
  const purgeCodes = db.prepare<[number]>('DELETE FROM email_codes WHERE expires_at <= ?');
  const purgePending = db.prepare<[number]>('DELETE FROM pending_sign_ins WHERE expires_at <= ?');
  const purgeChallenges = db.prepare<[number]>('DELETE FROM webauthn_challenges WHERE expires_at <= ?');
  const purgeExpired = db.transaction(
    (now: number): PurgedDashboardData => ({
      sessions: purgeSessions.run(now, now).changes,
      codes: purgeCodes.run(now).changes,
      pendingSignIns: purgePending.run(now).changes,
      challenges: purgeChallenges.run(now).changes,
    }),
  );
  const deleteSessions = db.prepare<[string]>('DELETE FROM sessions WHERE account_id = ?');
  const deleteCodesOf = db.prepare<[string]>('DELETE FROM email_codes WHERE email = ?');
  const deleteAuditOf = db.prepare<[string, string]>(
    `DELETE FROM audit_events
      WHERE project_id IN (SELECT id FROM projects WHERE account_id = ?) OR actor_account_id = ?`,
  );
  const deleteDashboardData = db.transaction((accountId: string, email: string) => {
    deleteSessions.run(accountId);
    deleteCodesOf.run(email);
    deleteAuditOf.run(accountId, accountId);
  });

  return {
    async purgeExpired({ now }) {
      return purgeExpired.immediate(now);
    },
    async deleteAccountDashboardData({ accountId, email }) {
      deleteDashboardData.immediate(accountId, email);
    },
  };
}
