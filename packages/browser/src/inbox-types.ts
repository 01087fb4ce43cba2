import type { TidingsStatus } from './types.js';

/** One item of a recipient's inbox: a live notification they were sent, with its state (docs/inbox.md). */
export interface TidingsInboxItem {
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
export interface TidingsInboxCounts {
  object: 'inbox_counts';
  total: number;
  unread: number;
  unseen: number;
  /** Rises with every change of the recipient's inbox: of two counts, keep the one with the higher version. */
  version: number;
}

/** What a mark does to the items it names, or to all of them. */
export type TidingsInboxAction = 'seen' | 'read' | 'unread' | 'archive' | 'unarchive';

/** What one mark changed: the answer to a mark, and the `inbox` event of every connected browser. */
export interface TidingsInboxUpdate {
  object: 'inbox_update';
  action: TidingsInboxAction;
  all: boolean;
  /** The items the action changed, as they are now (empty for `all`). */
  items: TidingsInboxItem[];
  /** The ids given that are not in the recipient's inbox. */
  not_found: string[];
  /** The counts after the change; `counts.version` is the version the change made. */
  counts: TidingsInboxCounts;
  /** The version of the inbox just before the change: changes apply in this order. */
  base_version: number;
  /** With `all`: the mark changed only items made at or before this version; null otherwise. */
  cutoff_version: number | null;
  /** When the mark was made (the time it set on the items it changed). */
  marked_at: string;
}

/** One page of the inbox, newest first. */
export interface TidingsInboxPage {
  object: 'list';
  data: TidingsInboxItem[];
  has_more: boolean;
  counts: TidingsInboxCounts;
}

/** Which items a list shows: the unread ones only or all, the archived ones or the others. */
export interface TidingsInboxFilter {
  unread: boolean;
  archived: boolean;
}

/** What {@link TidingsInbox.list} reads. */
export interface TidingsInboxListOptions {
  /** Only the unread items. @default false */
  unread?: boolean;
  /** The archived items only (true) or the others (false). @default false */
  archived?: boolean;
  /** 1–100. @default 20 */
  limit?: number;
  /** The last id of the previous page. */
  startingAfter?: string;
}

/**
 * What a subscriber of the inbox hears: a mark from any browser of the recipient or from the back
 * end (`update`), a new notification as an item (`item`), counts read again (`counts`, after a new
 * notification and after every reconnect), and every change of the connection's status (`status`:
 * a list shows that it is offline).
 */
export type TidingsInboxEvent =
  | { type: 'update'; update: TidingsInboxUpdate }
  /** `version`: the version of the inbox the item was made at; null when not known. */
  | { type: 'item'; item: TidingsInboxItem; version: number | null }
  | { type: 'counts'; counts: TidingsInboxCounts }
  | { type: 'status'; status: TidingsStatus };

/** The recipient's inbox, through this connection's browser (`connection.inbox`). */
export interface TidingsInbox {
  list(options?: TidingsInboxListOptions): Promise<TidingsInboxPage>;
  counts(): Promise<TidingsInboxCounts>;
  mark(action: TidingsInboxAction, ids: readonly string[] | 'all'): Promise<TidingsInboxUpdate>;
  /** The connection's status now (`connecting` until it first opens). */
  status(): TidingsStatus;
  /** Calls `listener` with every inbox event of this browser, in every tab; returns the unsubscribe function. */
  subscribe(listener: (event: TidingsInboxEvent) => void): () => void;
}
