import { isoTime } from '../delivery/serialize.js';
import { TidingsError } from '../pipeline/errors.js';
import type { KeyMode } from '../ports/records.js';
import type {
  AccountStore,
  RequestLogBody,
  RequestLogEntry,
  RequestLogSearch,
  RequestLogStatusClass,
  RequestLogStore,
} from '../ports/store.js';
import { isId } from '../shared/ids.js';

/** One logged API request as the dashboard shows it (docs/api.md#request-log). */
export interface RequestLogObject {
  object: 'request';
  /** The request id (`Request-Id` of its answer). */
  id: string;
  method: string;
  path: string;
  status: number;
  /** The problem's code of a refusal. */
  code: string | null;
  /** The first characters of the key it presented. */
  key_prefix: string;
  mode: KeyMode;
  idempotency_key: string | null;
  notification_ids: string[];
  recipient: string | null;
  /** When it arrived, RFC 3339 to the millisecond. */
  created_at: string;
  duration_ms: number;
  /** Its body, secrets removed, cut past 16 KiB (`truncated`). */
  request_body: RequestLogBody | null;
  response_body: RequestLogBody | null;
}

/** Filters of {@link RequestLogAdminApi.listRequests}. */
export interface ListRequestsOptions {
  /** Only requests older than this one: the last id of the previous page. */
  startingAfter?: string;
  /** At most this many, 1 to 100. @default 25 */
  limit?: number;
  status?: RequestLogStatusClass;
  mode?: KeyMode;
  /**
   * One text, whose shape says what it is: a `req_` id, a `ntf_` id (the requests about that
   * notification), else an Idempotency-Key or a recipient; matched exactly.
   */
  search?: string;
  /** Only refusals with this problem code, e.g. `NO_CONNECTED_BROWSER`. */
  code?: string;
  /** Only requests made with the key of this prefix: its first 12 characters (`sk_live_AbCd`). */
  keyPrefix?: string;
  /** Only requests that name this recipient (sends, connect tokens, inbox reads; refused ones too). */
  recipient?: string;
  /** Only requests made at or after this time, epoch milliseconds. */
  from?: number;
  /** Only requests made before this time, epoch milliseconds. */
  to?: number;
}

/** A problem code as the log keeps it: capitals and underscores. */
const CODE_PATTERN = /^[A-Z][A-Z_]{0,63}$/;
/** A key's prefix as the log keeps it: its first 12 characters. */
const KEY_PREFIX_PATTERN = /^sk_(live|test)_[A-Za-z0-9]{4}$/;
/** A recipient id (docs/api.md). */
const RECIPIENT_PATTERN = /^[A-Za-z0-9_\-.:@]{1,128}$/;

function checkTime(path: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalid(path, 'must be a time in epoch milliseconds');
  }
  return Math.floor(value);
}

/** The reads of the request log. */
export interface RequestLogAdminApi {
  /** A page of a project's logged requests, newest first, filtered. */
  listRequests(
    projectId: string,
    options?: ListRequestsOptions,
  ): Promise<{ requests: RequestLogObject[]; hasMore: boolean }>;
  /** One logged request of a project; NOT_FOUND when it is not there (another project's, past retention). */
  getRequest(projectId: string, requestId: string): Promise<RequestLogObject>;
}

/** The longest search text, in characters: the longest Idempotency-Key. */
export const MAX_REQUEST_SEARCH_LENGTH = 255;

const STATUS_CLASSES: readonly RequestLogStatusClass[] = ['2xx', '4xx', '5xx'];

function requestLogObject(entry: RequestLogEntry): RequestLogObject {
  return {
    object: 'request',
    id: entry.requestId,
    method: entry.method,
    path: entry.path,
    status: entry.status,
    code: entry.code,
    key_prefix: entry.keyPrefix,
    mode: entry.mode,
    idempotency_key: entry.idempotencyKey,
    notification_ids: entry.notificationIds,
    recipient: entry.recipient,
    created_at: isoTime(entry.createdAt),
    duration_ms: entry.durationMs,
    request_body: entry.requestBody,
    response_body: entry.responseBody,
  };
}

function invalid(path: string, message: string): TidingsError {
  return new TidingsError('VALIDATION_FAILED', message, { errors: [{ path, message }] });
}

/** What a search text looks for, by its shape. */
export function requestLogSearchOf(text: string): RequestLogSearch {
  if (isId('req', text)) return { requestId: text };
  if (isId('ntf', text)) return { notificationId: text };
  return { keyOrRecipient: text };
}

/** The request log part of the admin API. */
export function createRequestLogAdmin(store: AccountStore & RequestLogStore): RequestLogAdminApi {
  return {
    async listRequests(projectId, options = {}) {
      const { startingAfter, limit = 25, status, mode, search, code, keyPrefix, recipient } = options;
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid('limit', 'must be 1 to 100');
      if (startingAfter !== undefined && !isId('req', startingAfter)) {
        throw invalid('starting_after', 'must be a request id');
      }
      if (status !== undefined && !STATUS_CLASSES.includes(status)) throw invalid('status', 'must be 2xx, 4xx or 5xx');
      if (mode !== undefined && mode !== 'live' && mode !== 'test') throw invalid('mode', 'must be live or test');
      const text = typeof search === 'string' ? search.trim() : '';
      if (text.length > MAX_REQUEST_SEARCH_LENGTH) {
        throw invalid('q', `must be at most ${MAX_REQUEST_SEARCH_LENGTH} characters`);
      }
      if (code !== undefined && (typeof code !== 'string' || !CODE_PATTERN.test(code))) {
        throw invalid('code', 'must be an error code, such as NO_CONNECTED_BROWSER');
      }
      if (keyPrefix !== undefined && (typeof keyPrefix !== 'string' || !KEY_PREFIX_PATTERN.test(keyPrefix))) {
        throw invalid('key', 'must be the first 12 characters of a key, such as sk_live_AbCd');
      }
      if (recipient !== undefined && (typeof recipient !== 'string' || !RECIPIENT_PATTERN.test(recipient))) {
        throw invalid('recipient', 'must be a recipient id: 1 to 128 of A-Z a-z 0-9 _ - . : @');
      }
      const from = options.from === undefined ? null : checkTime('from', options.from);
      const to = options.to === undefined ? null : checkTime('to', options.to);
      if (from !== null && to !== null && from >= to) throw invalid('to', 'must be after from');
      if (!(await store.getProject(projectId))) throw new TidingsError('NOT_FOUND', `No project with id ${projectId}`);
      const page = await store.listRequestLog({
        projectId,
        statusClass: status ?? null,
        mode: mode ?? null,
        search: text === '' ? null : requestLogSearchOf(text),
        code: code ?? null,
        keyPrefix: keyPrefix ?? null,
        recipient: recipient ?? null,
        createdFrom: from,
        createdBefore: to,
        limit,
        startingAfter: startingAfter ?? null,
      });
      return { requests: page.entries.map(requestLogObject), hasMore: page.hasMore };
    },
    async getRequest(projectId, requestId) {
      const entry = isId('req', requestId) ? await store.getRequestLogEntry({ projectId, requestId }) : null;
      if (!entry) throw new TidingsError('NOT_FOUND', `No request with id ${requestId}`);
      return requestLogObject(entry);
    },
  };
}
