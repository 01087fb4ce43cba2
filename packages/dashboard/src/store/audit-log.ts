/** What the audit log records: who changed what in a project, when, from where. */
export type AuditAction =
  | 'project.created'
  | 'project.renamed'
  | 'project.inbox_retention_set'
  | 'project.suspended'
  | 'project.resumed'
  | 'project.deleted'
  | 'key.created'
  | 'key.revoked'
  | 'webhook.created'
  | 'webhook.updated'
  | 'webhook.disabled'
  | 'webhook.enabled'
  | 'webhook.deleted'
  | 'webhook.secret_rolled'
  | 'webhook.message_resent'
  | 'webhook.messages_replayed'
  | 'account.created'
  | 'account.verified'
  | 'account.operator_granted'
  | 'account.operator_revoked'
  | 'account.sign_in_code_issued'
  | 'invitation.sent'
  | 'invitation.revoked'
  | 'vapid_key.rotated';

/** Where a change was made: a page of the dashboard, or the operator CLI. */
export type AuditSource = 'dashboard' | 'cli';

/** One entry of the audit log. */
export interface AuditEventRecord {
  id: string;
  /** The project acted on; null for a change of an account or an invitation. */
  projectId: string | null;
  action: AuditAction;
  source: AuditSource;
  /** The account that acted; null for the operator CLI. */
  actorAccountId: string | null;
  /** The actor's email at the time, kept so the log reads well after the account changes; null for the CLI. */
  actorEmail: string | null;
  /** The CLI's actor: its `--actor`, else the operating system's user; null for the dashboard. */
  actorName: string | null;
  /** The client IP as the server saw it; null for the CLI. */
  ip: string | null;
  /** What was acted on, e.g. the key's id and name, or the new project name. */
  detail: string;
  /** Why, when the actor said (a suspension, a resumption); null otherwise. */
  reason: string | null;
  createdAt: number;
}

/**
 * The audit log: what the dashboard's pages and the operator CLI changed. Its entries outlive
 * the projects they name.
 */
export interface AuditLogStore {
  /** Records one entry of the audit log. */
  appendAuditEvent(event: AuditEventRecord): Promise<void>;
  /**
   * The audit log, newest first, at most `limit` entries: only a project's with `projectId`, only
   * one actor's with `actor` (an entry's actor is its `actorEmail`, else its `actorName`).
   */
  listAuditEvents(input: { projectId?: string; actor?: string; limit: number }): Promise<AuditEventRecord[]>;
}
