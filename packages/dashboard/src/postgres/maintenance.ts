import { run, type Sql, transaction } from '@tidings/store-postgres/sql';
import type { DashboardMaintenanceStore, PurgedDashboardData } from '../store.js';
import { dashboardStatement, type Pool } from './rows.js';

/** The purge of what expired, and the deletion of what the dashboard keeps of an account. */
export function maintenanceOperations(pool: Pool, sql: Sql): DashboardMaintenanceStore {
  const { t } = sql;
  const statement = (name: string, text: string) => dashboardStatement(sql, name, text);
  // One statement, so the four deletions are one snapshot and one round trip.
  const purgeExpired = statement(
    'purge_expired',
    `WITH sessions AS (
       DELETE FROM ${t('sessions')} WHERE idle_expires_at <= $1 OR absolute_expires_at <= $1 RETURNING 1
     ), codes AS (
       DELETE FROM ${t('email_codes')} WHERE expires_at <= $1 RETURNING 1
     ), pending AS (
       DELETE FROM ${t('pending_sign_ins')} WHERE expires_at <= $1 RETURNING 1
     ), challenges AS (
       DELETE FROM ${t('webauthn_challenges')} WHERE expires_at <= $1 RETURNING 1
     )
     SELECT (SELECT count(*) FROM sessions)::int AS sessions, (SELECT count(*) FROM codes)::int AS codes,
            (SELECT count(*) FROM pending)::int AS "pendingSignIns",
            (SELECT count(*) FROM challenges)::int AS challenges`,
  );
  const deleteSessionsOf = statement('delete_sessions_of', `DELETE FROM ${t('sessions')} WHERE account_id = $1`);
  const deleteCodesOf = statement('delete_email_codes_of', `DELETE FROM ${t('email_codes')} WHERE email = $1`);
  const deleteAuditOf = statement(
    'delete_account_audit',
    `DELETE FROM ${t('audit_events')}
      WHERE project_id IN (SELECT id FROM ${t('projects')} WHERE account_id = $1) OR actor_account_id = $1`,
  );

  return {
    async purgeExpired({ now }) {
      const [row] = await run<PurgedDashboardData>(pool, purgeExpired, [now]);
      return row!;
    },
    async deleteAccountDashboardData({ accountId, email }) {
      await transaction(pool, async (client) => {
        await run(client, deleteSessionsOf, [accountId]);
        await run(client, deleteCodesOf, [email]);
        await run(client, deleteAuditOf, [accountId]);
      });
    },
  };
}
