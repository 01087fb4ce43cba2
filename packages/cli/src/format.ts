import { type AccountObject, type ApiKeyObject, isoTime, type ProjectObject, type UsageObject } from '@tidings/core';
import type { AuditEventRecord } from '@tidings/dashboard';

/** Readable renderings of the admin objects, one line per object, for a terminal. */

export function accountLine(account: AccountObject): string {
  return `${account.id}  ${account.email}  ${(account.verified ? 'verified' : 'unverified').padEnd(10)}  ${account.created_at}`;
}

export function projectLine(project: ProjectObject): string {
  return `${project.id}  ${project.suspended ? 'suspended' : 'active   '}  ${project.name}`;
}

export function keyLine(key: ApiKeyObject): string {
  const lastUsed = key.last_used_at ? `last used ${key.last_used_at}` : 'never used';
  const name = key.name ? `  ${key.name}` : '';
  return `${key.id}  ${key.prefix}…  ${key.mode}  ${key.status.padEnd(7)}  ${lastUsed}${name}`;
}

export function listText<T>(items: T[], line: (item: T) => string, empty: string): string {
  return items.length === 0 ? empty : items.map(line).join('\n');
}

export function createdKeyText(key: ApiKeyObject): string {
  return `created api_key ${key.id} (${key.mode})\n  key: ${key.key}  (shown once; store it now)`;
}

export function usageText(usage: UsageObject): string {
  const rows = usage.days.map(
    (day) => `  ${day.date}  ${String(day.notifications).padStart(13)}  ${String(day.attempts).padStart(8)}`,
  );
  return [
    `usage of ${usage.project_id} from ${usage.from} to ${usage.to} (live mode)`,
    '  date        notifications  attempts',
    ...rows,
    `  total       ${String(usage.total.notifications).padStart(13)}  ${String(usage.total.attempts).padStart(8)}`,
  ].join('\n');
}

/** An audit entry as `tidings audit --json` prints it. */
export function auditEventObject(event: AuditEventRecord) {
  return {
    object: 'audit_event',
    id: event.id,
    project_id: event.projectId,
    action: event.action,
    source: event.source,
    actor: event.actorEmail ?? event.actorName,
    actor_account_id: event.actorAccountId,
    ip: event.ip,
    detail: event.detail,
    reason: event.reason,
    created_at: isoTime(event.createdAt),
  };
}

export function auditLine(event: AuditEventRecord): string {
  const actor = `${event.actorEmail ?? event.actorName ?? 'unknown'} (${event.source === 'cli' ? 'CLI' : 'dashboard'})`;
  const reason = event.reason === null ? '' : `  reason: ${event.reason}`;
  return `${isoTime(event.createdAt)}  ${event.action}  ${actor}  ${event.projectId ?? '-'}  ${event.detail}${reason}`;
}
