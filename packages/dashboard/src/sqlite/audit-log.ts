import type { AuditAction, AuditEventRecord, AuditLogStore, AuditSource } from '../store.js';
import type { Connection } from './rows.js';

interface AuditEventRow {
  id: string;
  project_id: string | null;
  action: AuditAction;
  source: AuditSource;
  actor_account_id: string | null;
  actor_email: string | null;
  actor_name: string | null;
  ip: string | null;
  detail: string;
  reason: string | null;
  created_at: number;
}

/** The audit log, newest first by id (ids sort by time). */
export function auditLogOperations(db: Connection): AuditLogStore {
  const insertAudit = db.prepare<[AuditEventRecord]>(
    `INSERT INTO audit_events
       (id, project_id, action, source, actor_account_id, actor_email, actor_name, ip, detail, reason, created_at)
     VALUES (@id, @projectId, @action, @source, @actorAccountId, @actorEmail, @actorName, @ip, @detail, @reason, @createdAt)`,
  );
  const selectAudit = db.prepare<{ project: string | null; actor: string | null; limit: number }, AuditEventRow>(
    `SELECT * FROM audit_events
      WHERE (@project IS NULL OR project_id = @project)
        AND (@actor IS NULL OR coalesce(actor_email, actor_name) = @actor)
      ORDER BY id DESC LIMIT @limit`,
  );

  return {
    async appendAuditEvent(event: AuditEventRecord) {
      insertAudit.run({
        id: event.id,
        projectId: event.projectId,
        action: event.action,
        source: event.source,
        actorAccountId: event.actorAccountId,
        actorEmail: event.actorEmail,
        actorName: event.actorName,
        ip: event.ip,
        detail: event.detail,
        reason: event.reason,
        createdAt: event.createdAt,
      });
    },
    async listAuditEvents({ projectId, actor, limit }) {
      return selectAudit.all({ project: projectId ?? null, actor: actor ?? null, limit }).map((row) => ({
        id: row.id,
        projectId: row.project_id,
        action: row.action,
        source: row.source,
        actorAccountId: row.actor_account_id,
        actorEmail: row.actor_email,
        actorName: row.actor_name,
        ip: row.ip,
        detail: row.detail,
        reason: row.reason,
        createdAt: row.created_at,
      }));
    },
  };
}
