import { run, type Sql } from '@tidings/store-postgres/sql';
import type { AuditEventRecord, AuditLogStore } from '../store.js';
import { dashboardStatement, type Pool } from './rows.js';

/** The audit log, newest first by id (ids sort by time). */
export function auditLogOperations(pool: Pool, sql: Sql): AuditLogStore {
  const { t } = sql;
  const statement = (name: string, text: string) => dashboardStatement(sql, name, text);
  const insertAudit = statement(
    'insert_audit_event',
    `INSERT INTO ${t('audit_events')}
       (id, project_id, action, source, actor_account_id, actor_email, actor_name, ip, detail, reason, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
  );
  const selectAudit = statement(
    'select_audit_events',
    `SELECT id, project_id AS "projectId", action, source, actor_account_id AS "actorAccountId",
            actor_email AS "actorEmail", actor_name AS "actorName", ip, detail, reason, created_at AS "createdAt"
       FROM ${t('audit_events')}
      WHERE ($1::text IS NULL OR project_id = $1::text)
        AND ($2::text IS NULL OR coalesce(actor_email, actor_name) = $2::text)
      ORDER BY id DESC LIMIT $3`,
  );

  return {
    async appendAuditEvent(event: AuditEventRecord) {
      await run(pool, insertAudit, [
        event.id,
        event.projectId,
        event.action,
        event.source,
        event.actorAccountId,
        event.actorEmail,
        event.actorName,
        event.ip,
        event.detail,
        event.reason,
        event.createdAt,
      ]);
    },
    async listAuditEvents({ projectId, actor, limit }) {
      return run<AuditEventRecord>(pool, selectAudit, [projectId ?? null, actor ?? null, limit]);
    },
  };
}
