import type {
  AccountRecord,
  ApiKeyRecord,
  AttemptReason,
  AttemptRecord,
  AttemptStatus,
  BrowserRecord,
  DisconnectReason,
  KeyMode,
  NotificationRecord,
  ProjectRecord,
} from '@tidings/core';

/** SQLite has no boolean: 0 and 1 stand for false and true. */
export type Bit = 0 | 1;

/** A boolean as stored. */
export function bit(value: boolean): Bit {
  return value ? 1 : 0;
}

/** A row of `accounts`. */
export interface AccountRow {
  id: string;
  email: string;
  verified: Bit;
  created_at: number;
}

/** Maps an `accounts` row to its record. */
export function accountFromRow(row: AccountRow): AccountRecord {
  return { id: row.id, email: row.email, verified: row.verified === 1, createdAt: row.created_at };
}

/** A row of `projects`. */
export interface ProjectRow {
  id: string;
  account_id: string;
  name: string;
  suspended: Bit;
  created_at: number;
  suspended_at: number | null;
}

/** Maps a `projects` row to its record. */
export function projectFromRow(row: ProjectRow): ProjectRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    suspended: row.suspended === 1,
    createdAt: row.created_at,
    suspendedAt: row.suspended_at,
  };
}

/**
 * The columns of the project a key, token or browser belongs to, for a one-statement lookup:
 * select them from a join with `projects AS p` and read them back with {@link joinedProject}.
 */
export const JOINED_PROJECT_COLUMNS =
  'p.id AS p_id, p.account_id AS p_account_id, p.name AS p_name, p.suspended AS p_suspended, ' +
  'p.created_at AS p_created_at, p.suspended_at AS p_suspended_at';

/** The project columns of a row selected with {@link JOINED_PROJECT_COLUMNS}. */
export interface JoinedProjectRow {
  p_id: string;
  p_account_id: string;
  p_name: string;
  p_suspended: Bit;
  p_created_at: number;
  p_suspended_at: number | null;
}

/** Reads the project out of a row selected with {@link JOINED_PROJECT_COLUMNS}. */
export function joinedProject(row: JoinedProjectRow): ProjectRecord {
  return projectFromRow({
    id: row.p_id,
    account_id: row.p_account_id,
    name: row.p_name,
    suspended: row.p_suspended,
    created_at: row.p_created_at,
    suspended_at: row.p_suspended_at,
  });
}

/** A row of `api_keys`. */
export interface ApiKeyRow {
  id: string;
  project_id: string;
  hash: string;
  prefix: string;
  mode: KeyMode;
  name: string | null;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

/** Maps an `api_keys` row to its record (the hash stays in the store). */
export function apiKeyFromRow(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    prefix: row.prefix,
    mode: row.mode,
    name: row.name,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/** A row of `browsers`. */
export interface BrowserRow {
  id: string;
  project_id: string;
  recipient: string;
  secret_hash: string;
  connected: Bit;
  disconnect_reason: DisconnectReason | null;
  created_at: number;
  last_seen_at: number;
  disconnected_at: number | null;
  last_seq: number;
}

/** Maps a `browsers` row to its record. */
export function browserFromRow(row: BrowserRow): BrowserRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    recipient: row.recipient,
    secretHash: row.secret_hash,
    connected: row.connected === 1,
    disconnectReason: row.disconnect_reason,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    disconnectedAt: row.disconnected_at,
  };
}

/** A row of `notifications`. */
export interface NotificationRow {
  id: string;
  project_id: string;
  mode: KeyMode;
  recipient: string;
  title: string;
  body: string | null;
  url: string | null;
  icon: string | null;
  tag: string | null;
  data: string | null;
  ttl: number;
  created_at: number;
  expires_at: number;
}

/** `data` is stored as JSON text. */
export function parseData(data: string | null): Record<string, unknown> | null {
  return data === null ? null : (JSON.parse(data) as Record<string, unknown>);
}

/** Maps a `notifications` row to its record. */
export function notificationFromRow(row: NotificationRow): NotificationRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    mode: row.mode,
    recipient: row.recipient,
    title: row.title,
    body: row.body,
    url: row.url,
    icon: row.icon,
    tag: row.tag,
    data: parseData(row.data),
    ttl: row.ttl,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

/** A row of `attempts`. */
export interface AttemptRow {
  id: string;
  notification_id: string;
  browser_id: string;
  seq: number;
  status: AttemptStatus;
  final: Bit;
  accepted_at: number;
  sent_at: number | null;
  delivered_at: number | null;
  failed_at: number | null;
  expired_at: number | null;
  reason: AttemptReason | null;
  displayed_at: number | null;
  clicked_at: number | null;
  dismissed_at: number | null;
}

/** Maps an `attempts` row to its record. */
export function attemptFromRow(row: AttemptRow): AttemptRecord {
  return {
    id: row.id,
    notificationId: row.notification_id,
    browserId: row.browser_id,
    seq: row.seq,
    status: row.status,
    final: row.final === 1,
    acceptedAt: row.accepted_at,
    sentAt: row.sent_at,
    deliveredAt: row.delivered_at,
    failedAt: row.failed_at,
    expiredAt: row.expired_at,
    reason: row.reason,
    displayedAt: row.displayed_at,
    clickedAt: row.clicked_at,
    dismissedAt: row.dismissed_at,
  };
}

/**
 * The columns of the attempts of a notification, for a one-statement read: select them from a
 * left join with `attempts AS a` and read them back with {@link joinedAttempt}. `a_id` is null
 * on the one row of a notification without attempts.
 */
export const JOINED_ATTEMPT_COLUMNS =
  'a.id AS a_id, a.browser_id AS a_browser_id, a.seq AS a_seq, a.status AS a_status, a.final AS a_final, ' +
  'a.accepted_at AS a_accepted_at, a.sent_at AS a_sent_at, a.delivered_at AS a_delivered_at, ' +
  'a.failed_at AS a_failed_at, a.expired_at AS a_expired_at, a.reason AS a_reason, ' +
  'a.displayed_at AS a_displayed_at, a.clicked_at AS a_clicked_at, a.dismissed_at AS a_dismissed_at';

/** The attempt columns of a row selected with {@link JOINED_ATTEMPT_COLUMNS}, and its notification's id. */
export interface JoinedAttemptRow {
  id: string;
  a_id: string | null;
  a_browser_id: string;
  a_seq: number;
  a_status: AttemptStatus;
  a_final: Bit;
  a_accepted_at: number;
  a_sent_at: number | null;
  a_delivered_at: number | null;
  a_failed_at: number | null;
  a_expired_at: number | null;
  a_reason: AttemptReason | null;
  a_displayed_at: number | null;
  a_clicked_at: number | null;
  a_dismissed_at: number | null;
}

/** Reads the attempt out of a row selected with {@link JOINED_ATTEMPT_COLUMNS} whose `a_id` is set. */
export function joinedAttempt(row: JoinedAttemptRow): AttemptRecord {
  return attemptFromRow({
    id: row.a_id!,
    notification_id: row.id,
    browser_id: row.a_browser_id,
    seq: row.a_seq,
    status: row.a_status,
    final: row.a_final,
    accepted_at: row.a_accepted_at,
    sent_at: row.a_sent_at,
    delivered_at: row.a_delivered_at,
    failed_at: row.a_failed_at,
    expired_at: row.a_expired_at,
    reason: row.a_reason,
    displayed_at: row.a_displayed_at,
    clicked_at: row.a_clicked_at,
    dismissed_at: row.a_dismissed_at,
  });
}
