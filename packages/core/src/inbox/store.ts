/** The days an inbox item is kept when its project set nothing else. */
export const DEFAULT_INBOX_RETENTION_DAYS = 90;

/** What a mark does to the inbox items it names (docs/inbox.md#marking). */
export type InboxAction = 'seen' | 'read' | 'unread' | 'archive' | 'unarchive';

/** One item of a recipient's inbox: a live notification they were sent, and its state. */
export interface InboxItemRecord {
  notificationId: string;
  projectId: string;
  recipient: string;
  title: string;
  body: string | null;
  url: string | null;
  icon: string | null;
  tag: string | null;
  data: Record<string, unknown> | null;
  createdAt: number;
  seenAt: number | null;
  readAt: number | null;
  archivedAt: number | null;
}

/** The counts of a recipient's items that are not archived. */
export interface InboxCounts {
  total: number;
  unread: number;
  unseen: number;
  /** Rises with every change of the recipient's inbox: of two counts, the higher version is the later. */
  version: number;
}

/** Which items a mark applies to. */
export type InboxTarget =
  /** These notifications of the recipient's inbox. */
  | { ids: readonly string[] }
  /** Every item the action applies to (those not archived; the archived ones for `unarchive`). */
  | { all: true }
  /** The notifications of these attempts of one browser of the recipient (its receipts). */
  | { browserId: string; attemptIds: readonly string[] };

/** Outcome of {@link InboxStore.markInbox}. */
export interface MarkInboxResult {
  /** The items the mark changed, as it left them (none for `all`). */
  changed: InboxItemRecord[];
  /** The ids of the target that are not in the recipient's inbox. */
  notFound: string[];
  /** True when the mark changed anything. */
  anyChanged: boolean;
  counts: InboxCounts;
  /**
   * The version of the recipient's inbox just before the mark (`counts.version` when it changed
   * nothing): a browser applies the changes it is told in the order of these versions.
   */
  previousVersion: number;
  /** The connected browsers of the recipient, to tell. */
  browserIds: string[];
}

/**
 * The inbox of each recipient (docs/inbox.md): every live notification is an item, recorded with
 * it in its send's transaction; read, seen and archived per recipient, with counters kept in the
 * transaction of every change.
 */
export interface InboxStore {
  /** A page of a recipient's items, newest first, after `startingAfter`; with the counts. */
  listInbox(input: {
    projectId: string;
    recipient: string;
    /** Only the unread ones. */
    unread: boolean;
    /** The archived ones only, or the others only. */
    archived: boolean;
    limit: number;
    startingAfter: string | null;
  }): Promise<{ items: InboxItemRecord[]; hasMore: boolean; counts: InboxCounts }>;
  getInboxCounts(input: { projectId: string; recipient: string }): Promise<InboxCounts>;
  /** The item of one notification, or null (test mode, another project, past retention). */
  getInboxItem(input: { projectId: string; notificationId: string }): Promise<InboxItemRecord | null>;
  /**
   * Applies an action to items of a recipient's inbox, in one transaction with the counters. An
   * item that becomes read records the `notification.read` webhook event.
   */
  markInbox(input: {
    projectId: string;
    recipient: string;
    action: InboxAction;
    target: InboxTarget;
    now: number;
  }): Promise<MarkInboxResult>;
  /**
   * The reminder of `notify_unread_after`: when the notification's item is unread, not archived
   * and not reminded yet, marks it reminded and records the `notification.unread` webhook event,
   * in one transaction. False when it did nothing, so that a job run again never reminds twice.
   */
  remindUnread(input: { notificationId: string; afterSeconds: number; now: number }): Promise<boolean>;
  /** Deletes the items older than their project's inbox retention (with their counts). */
  purgeInbox(input: { now: number }): Promise<number>;
  /** Sets the days a project's inbox items are kept (1–365; {@link DEFAULT_INBOX_RETENTION_DAYS} until set). */
  setInboxRetention(input: { projectId: string; days: number }): Promise<void>;
  getInboxRetention(input: { projectId: string }): Promise<number>;
}
