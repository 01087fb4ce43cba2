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
    async listRequests(projectId, { startingAfter, limit = 25, status, mode, search } = {}) {
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
      if (!(await store.getProject(projectId))) throw new TidingsError('NOT_FOUND', `No project with id ${projectId}`);
      const page = await store.listRequestLog({
        projectId,
        statusClass: status ?? null,
        mode: mode ?? null,
        search: text === '' ? null : requestLogSearchOf(text),
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
