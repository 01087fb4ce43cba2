import type { KeyMode } from '../ports/records.js';

/** The days a request log entry is kept unless the deployment says otherwise (docs/api.md#request-log). */
export const DEFAULT_REQUEST_LOG_RETENTION_DAYS = 7;

/** A body of a request log entry: its text with every secret removed, cut past the cap. */
export interface RequestLogBody {
  text: string;
  /** True when the text was cut at the cap: what is kept is its beginning. */
  truncated: boolean;
}

/** One API request of a project, as the request log keeps it (docs/api.md#request-log). */
export interface RequestLogEntry {
  /** The request id the answer carried (`Request-Id`), `req_…`. */
  requestId: string;
  projectId: string;
  method: string;
  /** The path as asked for, with the query (secrets removed), without the mount path. */
  path: string;
  status: number;
  /** The problem's code of a refusal (`NO_CONNECTED_BROWSER`), null for a success. */
  code: string | null;
  /** The first characters of the key the request presented (never the key). */
  keyPrefix: string;
  mode: KeyMode;
  idempotencyKey: string | null;
  /** The notifications the request concerns: the one sent or read, those it marked. */
  notificationIds: string[];
  /** The recipient the request concerns, if one. */
  recipient: string | null;
  /** When the request arrived, epoch milliseconds. */
  createdAt: number;
  /** How long the answer took, in milliseconds (fractions kept). */
  durationMs: number;
  /** The request's body as read; null when it had none or was not read (a refusal before it). */
  requestBody: RequestLogBody | null;
  /** The answer's body; null when it had none. */
  responseBody: RequestLogBody | null;
}

/** The status classes the log is filtered by. */
export type RequestLogStatusClass = '2xx' | '4xx' | '5xx';

/**
 * What one search of the log looks for, matched exactly: a request id, a notification the
 * request concerns, or a text that is its Idempotency-Key or its recipient.
 */
export type RequestLogSearch = { requestId: string } | { notificationId: string } | { keyOrRecipient: string };

/** Input of {@link RequestLogStore.listRequestLog}. */
export interface ListRequestLogInput {
  projectId: string;
  /** Only entries whose status is in this class. */
  statusClass: RequestLogStatusClass | null;
  mode: KeyMode | null;
  search: RequestLogSearch | null;
  /** Only entries whose problem code is this one (`NO_CONNECTED_BROWSER`). */
  code?: string | null;
  /** Only entries made with the key of this prefix (its first 12 characters). */
  keyPrefix?: string | null;
  /** Only entries that name this recipient, matched exactly. */
  recipient?: string | null;
  /** Only entries made at or after this time (epoch ms). */
  createdFrom?: number | null;
  /** Only entries made before this time (epoch ms). */
  createdBefore?: number | null;
  limit: number;
  /** The request id of the last entry of the previous page: the page starts after it. */
  startingAfter: string | null;
}

/**
 * The log of every API request of a project (docs/api.md#request-log): a diagnostic record,
 * written in batches off the request path, kept for the deployment's retention.
 */
export interface RequestLogStore {
  /** Adds entries, all in one transaction. An entry whose request id is there already is ignored. */
  appendRequestLog(entries: readonly RequestLogEntry[]): Promise<void>;
  /** A page of a project's entries, newest first (by request id, which sorts by time), filtered. */
  listRequestLog(input: ListRequestLogInput): Promise<{ entries: RequestLogEntry[]; hasMore: boolean }>;
  /** One entry of a project, or null (unknown, another project's, past retention). */
  getRequestLogEntry(input: { projectId: string; requestId: string }): Promise<RequestLogEntry | null>;
  /**
   * Deletes at most `limit` entries made before `before`, oldest first, in one transaction;
   * returns how many it deleted, so that a caller deletes a backlog batch by batch.
   */
  purgeRequestLog(input: { before: number; limit: number }): Promise<number>;
}
