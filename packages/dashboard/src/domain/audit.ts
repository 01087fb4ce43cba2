import { newId } from '@tidings/core';
import type { AuditAction, AuditEventRecord, AuditLogStore } from '../store.js';

/** Who made a change: an account signed in to the dashboard, or an operator at the CLI. */
export type AuditActor =
  | { source: 'dashboard'; accountId: string; email: string; ip: string }
  | { source: 'cli'; name: string };

/** What changed, for {@link recordAudit}. */
export interface AuditEntry {
  /** The project acted on; null for an account or an invitation. */
  projectId: string | null;
  action: AuditAction;
  /** What was acted on, e.g. the key's id and name. Never a secret. */
  detail: string;
  /** Why, when the actor said. */
  reason?: string | null;
}

/**
 * Writes one entry of the audit log: the one writer of the dashboard's pages and of the operator
 * CLI, so that both record the same fields the same way.
 */
export async function recordAudit(
  store: Pick<AuditLogStore, 'appendAuditEvent'>,
  now: number,
  actor: AuditActor,
  entry: AuditEntry,
): Promise<AuditEventRecord> {
  const event: AuditEventRecord = {
    id: newId('aud', now),
    projectId: entry.projectId,
    action: entry.action,
    source: actor.source,
    actorAccountId: actor.source === 'dashboard' ? actor.accountId : null,
    actorEmail: actor.source === 'dashboard' ? actor.email : null,
    actorName: actor.source === 'cli' ? actor.name : null,
    ip: actor.source === 'dashboard' ? actor.ip : null,
    detail: entry.detail,
    reason: entry.reason ?? null,
    createdAt: now,
  };
  await store.appendAuditEvent(event);
  return event;
}

/** Who an entry names as its actor: the account's email, else the CLI's actor. */
export function auditActorOf(event: AuditEventRecord): string {
  return event.actorEmail ?? event.actorName ?? 'unknown';
}
