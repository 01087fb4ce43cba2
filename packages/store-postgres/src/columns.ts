import type { ProjectRecord } from '@tidings/core';

/**
 * Column lists that select a table's row as its record, with the record's own names, so rows
 * are records as they come (int8 is read as a number, see db.ts).
 */
export const ACCOUNT = 'id, email, verified, created_at AS "createdAt"';

/** A project's columns as a {@link ProjectRecord}. */
export const PROJECT =
  'id, account_id AS "accountId", name, suspended, created_at AS "createdAt", suspended_at AS "suspendedAt", ' +
  'suspended_reason AS "suspendedReason", suspended_by AS "suspendedBy"';

/** An API key's columns as its record: the hash stays in the store. */
export const API_KEY =
  'id, project_id AS "projectId", prefix, mode, name, created_at AS "createdAt", ' +
  'last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"';

/** A browser's columns as its record. */
export const BROWSER =
  'id, project_id AS "projectId", recipient, secret_hash AS "secretHash", connected, ' +
  'disconnect_reason AS "disconnectReason", created_at AS "createdAt", last_seen_at AS "lastSeenAt", ' +
  'disconnected_at AS "disconnectedAt"';

/** {@link BROWSER} of the table aliased `b`, in a select that joins others. */
export const BROWSER_OF_B =
  'b.id, b.project_id AS "projectId", b.recipient, b.secret_hash AS "secretHash", b.connected, ' +
  'b.disconnect_reason AS "disconnectReason", b.created_at AS "createdAt", b.last_seen_at AS "lastSeenAt", ' +
  'b.disconnected_at AS "disconnectedAt"';

/**
 * The attempts of notification `n`, in their order, as one JSON array of records: a read of a
 * notification is then one row of one statement.
 */
export const ATTEMPTS_JSON = `coalesce((
  SELECT json_agg(json_build_object(
    'id', a.id, 'notificationId', a.notification_id, 'browserId', a.browser_id, 'seq', a.seq,
    'status', a.status, 'final', a.final, 'acceptedAt', a.accepted_at, 'sentAt', a.sent_at, 'sentVia', a.sent_via,
    'pushAcceptedAt', a.push_accepted_at,
    'deliveredAt', a.delivered_at, 'failedAt', a.failed_at, 'expiredAt', a.expired_at, 'reason', a.reason,
    'displayedAt', a.displayed_at, 'clickedAt', a.clicked_at, 'dismissedAt', a.dismissed_at
  ) ORDER BY a.position)
  FROM {attempts} AS a WHERE a.notification_id = n.id
), '[]')`;

/** A notification's columns as its record. */
export const NOTIFICATION =
  'id, project_id AS "projectId", mode, recipient, title, body, url, icon, tag, data, ttl, ' +
  'created_at AS "createdAt", expires_at AS "expiresAt", api_key_id AS "apiKeyId", request_id AS "requestId", ' +
  'idempotency_key AS "idempotencyKey"';

/**
 * The columns of the project a key, token or browser belongs to, from a join with
 * `projects AS p`, read back with {@link joinedProject}.
 */
export const JOINED_PROJECT =
  'p.id AS p_id, p.account_id AS p_account_id, p.name AS p_name, p.suspended AS p_suspended, ' +
  'p.created_at AS p_created_at, p.suspended_at AS p_suspended_at, ' +
  'p.suspended_reason AS p_suspended_reason, p.suspended_by AS p_suspended_by';

/** The project columns of a row selected with {@link JOINED_PROJECT}. */
export interface JoinedProjectRow {
  p_id: string;
  p_account_id: string;
  p_name: string;
  p_suspended: boolean;
  p_created_at: number;
  p_suspended_at: number | null;
  p_suspended_reason: string | null;
  p_suspended_by: string | null;
}

/** Reads the project out of a row selected with {@link JOINED_PROJECT}. */
export function joinedProject(row: JoinedProjectRow): ProjectRecord {
  return {
    id: row.p_id,
    accountId: row.p_account_id,
    name: row.p_name,
    suspended: row.p_suspended,
    createdAt: row.p_created_at,
    suspendedAt: row.p_suspended_at,
    suspendedReason: row.p_suspended_reason,
    suspendedBy: row.p_suspended_by,
  };
}
