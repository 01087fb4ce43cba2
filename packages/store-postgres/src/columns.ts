import type { ProjectRecord } from '@tidings/core';

/**
 * Column lists that select a table's row as its record, with the record's own names, so rows
 * are records as they come (int8 is read as a number, see db.ts).
 */
export const ACCOUNT = 'id, email, verified, created_at AS "createdAt"';

/** A project's columns as a {@link ProjectRecord}. */
export const PROJECT =
  'id, account_id AS "accountId", name, suspended, created_at AS "createdAt", suspended_at AS "suspendedAt"';

/** An API key's columns as its record: the hash stays in the store. */
export const API_KEY =
  'id, project_id AS "projectId", prefix, mode, name, created_at AS "createdAt", ' +
  'last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"';

/** A browser's columns as its record. */
export const BROWSER =
  'id, project_id AS "projectId", recipient, secret_hash AS "secretHash", connected, ' +
  'disconnect_reason AS "disconnectReason", created_at AS "createdAt", last_seen_at AS "lastSeenAt", ' +
  'disconnected_at AS "disconnectedAt"';

/** An attempt's columns as its record. */
export const ATTEMPT =
  'id, notification_id AS "notificationId", browser_id AS "browserId", seq, status, final, ' +
  'accepted_at AS "acceptedAt", sent_at AS "sentAt", delivered_at AS "deliveredAt", failed_at AS "failedAt", ' +
  'expired_at AS "expiredAt", reason, displayed_at AS "displayedAt", clicked_at AS "clickedAt", ' +
  'dismissed_at AS "dismissedAt"';

/** A notification's columns as its record. */
export const NOTIFICATION =
  'id, project_id AS "projectId", mode, recipient, title, body, url, icon, tag, data, ttl, ' +
  'created_at AS "createdAt", expires_at AS "expiresAt"';

/**
 * The columns of the project a key, token or browser belongs to, from a join with
 * `projects AS p`, read back with {@link joinedProject}.
 */
export const JOINED_PROJECT =
  'p.id AS p_id, p.account_id AS p_account_id, p.name AS p_name, p.suspended AS p_suspended, ' +
  'p.created_at AS p_created_at, p.suspended_at AS p_suspended_at';

/** The project columns of a row selected with {@link JOINED_PROJECT}. */
export interface JoinedProjectRow {
  p_id: string;
  p_account_id: string;
  p_name: string;
  p_suspended: boolean;
  p_created_at: number;
  p_suspended_at: number | null;
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
  };
}
