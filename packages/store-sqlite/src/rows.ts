import type {
  AccountRecord,
  ApiKeyRecord,
  AttemptPath,
  AttemptReason,
  AttemptRecord,
  AttemptStatus,
  BrowserConnectedBy,
  BrowserRecord,
  BrowserView,
  DisconnectReason,
  KeyMode,
  NotificationRecord,
  NotificationWithAttempts,
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
  suspended_reason: string | null;
  suspended_by: string | null;
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
    suspendedReason: row.suspended_reason,
    suspendedBy: row.suspended_by,
  };
}

/**
 * The columns of the project a key, token or browser belongs to, for a one-statement lookup:
 * select them from a join with `projects AS p` and read them back with {@link joinedProject}.
 */
export const JOINED_PROJECT_COLUMNS =
  'p.id AS p_id, p.account_id AS p_account_id, p.name AS p_name, p.suspended AS p_suspended, ' +
  'p.created_at AS p_created_at, p.suspended_at AS p_suspended_at, ' +
  'p.suspended_reason AS p_suspended_reason, p.suspended_by AS p_suspended_by';

/** The project columns of a row selected with {@link JOINED_PROJECT_COLUMNS}. */
export interface JoinedProjectRow {
  p_id: string;
  p_account_id: string;
  p_name: string;
  p_suspended: Bit;
  p_created_at: number;
  p_suspended_at: number | null;
  p_suspended_reason: string | null;
  p_suspended_by: string | null;
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
    suspended_reason: row.p_suspended_reason,
    suspended_by: row.p_suspended_by,
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
  held_by: string | null;
  user_agent: string | null;
  connected_by: BrowserConnectedBy | null;
}

/** A `browsers` row with its push subscription's endpoint, as {@link browserViewFromRow} reads it. */
export interface BrowserViewRow extends BrowserRow {
  push_endpoint: string | null;
}

/** Maps a browser's row and push endpoint to what a dashboard shows of it. */
export function browserViewFromRow(row: BrowserViewRow): BrowserView {
  return {
    browser: browserFromRow(row),
    userAgent: row.user_agent,
    connectedBy: row.connected_by,
    streamOpen: row.connected === 1 && row.held_by !== null,
    pushEndpoint: row.push_endpoint,
  };
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
  api_key_id: string | null;
  request_id: string | null;
  idempotency_key: string | null;
}

/** `data` is stored as JSON text. */
export function parseData(data: string | null): Record<string, unknown> | null {
  return data === null ? null : (JSON.parse(data) as Record<string, unknown>);
}

/**
 * The columns of a notification and, by a left join with `attempts AS a`, of each of its
 * attempts, in the order {@link notificationFromRawRows} reads them. Raw rows (arrays) spare
 * building an object with 27 named properties per row on the hottest read.
 */
export const NOTIFICATION_WITH_ATTEMPTS_COLUMNS = [
  'n.id',
  'n.project_id',
  'n.mode',
  'n.recipient',
  'n.title',
  'n.body',
  'n.url',
  'n.icon',
  'n.tag',
  'n.data',
  'n.ttl',
  'n.created_at',
  'n.expires_at',
  'a.id',
  'a.browser_id',
  'a.seq',
  'a.status',
  'a.final',
  'a.accepted_at',
  'a.sent_at',
  'a.delivered_at',
  'a.failed_at',
  'a.expired_at',
  'a.reason',
  'a.displayed_at',
  'a.clicked_at',
  'a.dismissed_at',
  'n.api_key_id',
  'n.request_id',
  'n.idempotency_key',
  'a.sent_via',
  'a.push_accepted_at',
].join(', ');

/** A raw row selected with {@link NOTIFICATION_WITH_ATTEMPTS_COLUMNS}. */
export type RawNotificationRow = unknown[];

/** The notification and its attempts out of the raw rows of one notification (null for none). */
export function notificationFromRawRows(rows: RawNotificationRow[]): NotificationWithAttempts | null {
  const first = rows[0];
  if (!first) return null;
  const notification: NotificationRecord = {
    id: first[0] as string,
    projectId: first[1] as string,
    mode: first[2] as KeyMode,
    recipient: first[3] as string,
    title: first[4] as string,
    body: first[5] as string | null,
    url: first[6] as string | null,
    icon: first[7] as string | null,
    tag: first[8] as string | null,
    data: parseData(first[9] as string | null),
    ttl: first[10] as number,
    createdAt: first[11] as number,
    expiresAt: first[12] as number,
    apiKeyId: first[27] as string | null,
    requestId: first[28] as string | null,
    idempotencyKey: first[29] as string | null,
  };
  const attempts: AttemptRecord[] = [];
  for (const row of rows) {
    // A notification without attempts has one row, whose attempt columns are null.
    if (row[13] === null) continue;
    attempts.push({
      id: row[13] as string,
      notificationId: notification.id,
      browserId: row[14] as string,
      seq: row[15] as number,
      status: row[16] as AttemptStatus,
      final: row[17] === 1,
      acceptedAt: row[18] as number,
      sentAt: row[19] as number | null,
      sentVia: (row[30] ?? null) as AttemptPath | null,
      pushAcceptedAt: (row[31] ?? null) as number | null,
      deliveredAt: row[20] as number | null,
      failedAt: row[21] as number | null,
      expiredAt: row[22] as number | null,
      reason: row[23] as AttemptReason | null,
      displayedAt: row[24] as number | null,
      clickedAt: row[25] as number | null,
      dismissedAt: row[26] as number | null,
    });
  }
  return { notification, attempts };
}
