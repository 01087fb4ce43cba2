// The API's objects, field for field as docs/api.md describes them (snake_case, as on the wire).
// A test compares them with the server's own types and with real answers.

import type { ServerErrorCode } from './errors.js';

/** The status of one delivery attempt; see "Attempt states" in the API reference. */
export type AttemptStatus = 'accepted' | 'sent' | 'delivered' | 'expired' | 'failed';

/** Why an attempt ended without a delivery receipt. */
export type AttemptReason = 'browser_disconnected' | 'browser_stale' | 'ttl_expired' | 'push_rejected';

/** One delivery attempt: one per connected browser of the recipient. Absent times are null. */
export interface AttemptObject {
  object: 'attempt';
  id: string;
  browser_id: string;
  status: AttemptStatus;
  /** True once the status can no longer change (`delivered`, `expired`, `failed`, or any test-mode attempt). */
  final: boolean;
  accepted_at: string;
  sent_at: string | null;
  /** How it went out: an open event stream, a poll, or the browser's Web Push service; null while not sent. */
  via: 'stream' | 'poll' | 'push' | null;
  /** When the browser's push service accepted a Web Push message of it; null if none did. */
  push_accepted_at: string | null;
  delivered_at: string | null;
  failed_at: string | null;
  expired_at: string | null;
  reason: AttemptReason | null;
  displayed_at: string | null;
  clicked_at: string | null;
  dismissed_at: string | null;
}

/** A notification and the status of its attempts, as `send` and `retrieve` return it. */
export interface NotificationObject {
  object: 'notification';
  /** `ntf_…` */
  id: string;
  mode: 'live' | 'test';
  recipient: string;
  title: string;
  body: string | null;
  url: string | null;
  icon: string | null;
  tag: string | null;
  data: Record<string, unknown> | null;
  /** Seconds. */
  ttl: number;
  created_at: string;
  expires_at: string;
  /** `completed` once every attempt is final. */
  status: 'pending' | 'completed';
  attempts: AttemptObject[];
}

/** A connect token for one recipient, to hand to a page; reusable until it expires. */
export interface ConnectTokenObject {
  object: 'connect_token';
  /** `ct_…`: give it to the page (e.g. to `@tidings/browser`), never log it. */
  token: string;
  recipient: string;
  expires_at: string;
  connect_url: string;
}

/** One invalid field of a VALIDATION_FAILED problem. */
export interface FieldError {
  path: string;
  message: string;
}

/** An RFC 9457 problem, as the server answers every error. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ServerErrorCode;
  request_id: string;
  errors?: FieldError[];
}

/** The body of a send; see `POST /v1/notifications` in the API reference for each rule. */
export interface SendNotificationParams {
  /** Your own id for the user: 1–128 characters of `A-Z a-z 0-9 _ - . : @`. */
  recipient: string;
  /** 1–200 characters. */
  title: string;
  /** Up to 2000 characters. */
  body?: string | null;
  /** An absolute http(s) URL, or a path starting with `/`. */
  url?: string | null;
  icon?: string | null;
  /** Up to 64 characters. */
  tag?: string | null;
  /** Any JSON object, at most 4 KiB serialized. */
  data?: Record<string, unknown> | null;
  /** Seconds, 1–604800. @default 86400 */
  ttl?: number | null;
  /**
   * Seconds, 1–2592000: if the recipient has not read it in their inbox by then, a
   * `notification.unread` webhook is sent (live mode).
   */
  notify_unread_after?: number | null;
  /**
   * True: when the recipient has no connected browser, the notification is kept for their inbox
   * (201, no attempt) instead of refused with 409 NO_CONNECTED_BROWSER.
   */
  keep_for_inbox?: boolean | null;
}

/** The body of `connectTokens.create`. */
export interface CreateConnectTokenParams {
  recipient: string;
  /** Lifetime of the token, 1–86400 seconds. @default 3600 (the server's setting) */
  ttlSeconds?: number;
}

/** One item of a recipient's inbox: a live notification they were sent, with its state. */
export interface InboxItemObject {
  object: 'inbox_item';
  /** The notification's id (`ntf_…`). */
  id: string;
  recipient: string;
  title: string;
  body: string | null;
  url: string | null;
  icon: string | null;
  tag: string | null;
  data: Record<string, unknown> | null;
  created_at: string;
  seen_at: string | null;
  read_at: string | null;
  archived_at: string | null;
}

/** The counts of a recipient's items that are not archived. */
export interface InboxCountsObject {
  object: 'inbox_counts';
  total: number;
  unread: number;
  unseen: number;
  /** Rises with every change of the recipient's inbox: of two counts, the higher version is the later. */
  version: number;
}

/** A page of a recipient's inbox, newest first. */
export interface InboxListObject {
  object: 'list';
  data: InboxItemObject[];
  has_more: boolean;
  counts: InboxCountsObject;
}

/** What a mark does. */
export type InboxAction = 'seen' | 'read' | 'unread' | 'archive' | 'unarchive';

/** What a mark changed. */
export interface InboxUpdateObject {
  object: 'inbox_update';
  action: InboxAction;
  all: boolean;
  /** The items it changed, as they are now (empty for `all`). */
  items: InboxItemObject[];
  /** The ids given that are not in the recipient's inbox. */
  not_found: string[];
  counts: InboxCountsObject;
}

/** Which page of an inbox `inbox.list` reads. */
export interface InboxListParams {
  /** Only the unread items. */
  unread?: boolean;
  /** The archived items only (true), or the others (false, the default). */
  archived?: boolean;
  /** 1–100. @default 20 */
  limit?: number;
  /** The last id of the previous page. */
  startingAfter?: string;
}

/** A mark: one action on 1–100 items, or on all of them. */
export type InboxMarkParams = { action: InboxAction; ids: string[] } | { action: InboxAction; all: true };
