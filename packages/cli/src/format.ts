import type { AccountObject, ApiKeyObject, ProjectObject, UsageObject } from '@tidings/core';

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
