import type { ResolvedClientOptions } from './options.js';
import { type RequestOptions, sendApiCall } from './request.js';
import type {
  InboxCountsObject,
  InboxListObject,
  InboxListParams,
  InboxMarkParams,
  InboxUpdateObject,
} from './types.js';

/** `client.inbox`: each recipient's inbox (docs/inbox.md). */
export interface Inbox {
  /** A page of the recipient's inbox, newest first, with its counts (`GET /v1/recipients/{recipient}/inbox`). */
  list(recipient: string, params?: InboxListParams, options?: RequestOptions): Promise<InboxListObject>;
  /** The counts of the recipient's items that are not archived. */
  counts(recipient: string, options?: RequestOptions): Promise<InboxCountsObject>;
  /**
   * Marks items (`ids`) or all of them (`all: true`): the user acted elsewhere. Every browser of the
   * recipient is told at once. Safe to retry: a mark sets a state, and keeps the first time.
   */
  mark(recipient: string, params: InboxMarkParams, options?: RequestOptions): Promise<InboxUpdateObject>;
}

function inboxPath(recipient: string, tail = ''): string {
  return `/v1/recipients/${encodeURIComponent(recipient)}/inbox${tail}`;
}

function queryOf(params: InboxListParams): string {
  const query = new URLSearchParams();
  if (params.unread !== undefined) query.set('unread', String(params.unread));
  if (params.archived !== undefined) query.set('archived', String(params.archived));
  if (params.limit !== undefined) query.set('limit', String(params.limit));
  if (params.startingAfter !== undefined) query.set('starting_after', params.startingAfter);
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}

export function createInbox(options: ResolvedClientOptions): Inbox {
  return {
    list: (recipient, params = {}, requestOptions) =>
      sendApiCall<InboxListObject>(
        options,
        { method: 'GET', path: `${inboxPath(recipient)}${queryOf(params)}` },
        requestOptions,
      ),
    counts: (recipient, requestOptions) =>
      sendApiCall<InboxCountsObject>(options, { method: 'GET', path: inboxPath(recipient, '/counts') }, requestOptions),
    mark: (recipient, params, requestOptions) =>
      sendApiCall<InboxUpdateObject>(
        options,
        {
          method: 'POST',
          path: inboxPath(recipient, '/mark'),
          body: 'all' in params ? { action: params.action, all: true } : { action: params.action, ids: params.ids },
        },
        requestOptions,
      ),
  };
}
