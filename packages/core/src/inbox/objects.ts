import type { z } from 'zod';
import type {
  inboxCountsObjectSchema,
  inboxItemObjectSchema,
  inboxListObjectSchema,
  inboxUpdateObjectSchema,
} from '../delivery/object-schemas.js';
import { isoTime } from '../delivery/serialize.js';
import type { InboxAction, InboxCounts, InboxItemRecord } from '../ports/store.js';

/** The public inbox item object. */
export type InboxItemObject = z.infer<typeof inboxItemObjectSchema>;
/** The public inbox counts object. */
export type InboxCountsObject = z.infer<typeof inboxCountsObjectSchema>;
/** A page of an inbox. */
export type InboxListObject = z.infer<typeof inboxListObjectSchema>;
/** What a mark changed. */
export type InboxUpdateObject = z.infer<typeof inboxUpdateObjectSchema>;

export function inboxItemObject(item: InboxItemRecord): InboxItemObject {
  return {
    object: 'inbox_item',
    id: item.notificationId,
    recipient: item.recipient,
    title: item.title,
    body: item.body,
    url: item.url,
    icon: item.icon,
    tag: item.tag,
    data: item.data,
    created_at: isoTime(item.createdAt),
    seen_at: isoTime(item.seenAt),
    read_at: isoTime(item.readAt),
    archived_at: isoTime(item.archivedAt),
  };
}

export function inboxCountsObject(counts: InboxCounts): InboxCountsObject {
  return {
    object: 'inbox_counts',
    total: counts.total,
    unread: counts.unread,
    unseen: counts.unseen,
    version: counts.version,
  };
}

export function inboxListObject(page: {
  items: InboxItemRecord[];
  hasMore: boolean;
  counts: InboxCounts;
}): InboxListObject {
  return {
    object: 'list',
    data: page.items.map(inboxItemObject),
    has_more: page.hasMore,
    counts: inboxCountsObject(page.counts),
  };
}

export function inboxUpdateObject(update: {
  action: InboxAction;
  all: boolean;
  changed: InboxItemRecord[];
  notFound: string[];
  counts: InboxCounts;
  previousVersion: number;
  now: number;
}): InboxUpdateObject {
  return {
    object: 'inbox_update',
    action: update.action,
    all: update.all,
    items: update.changed.map(inboxItemObject),
    not_found: update.notFound,
    counts: inboxCountsObject(update.counts),
    base_version: update.previousVersion,
    // A mark of all items changed those that existed before it: the ones made up to its base.
    cutoff_version: update.all ? update.previousVersion : null,
    marked_at: isoTime(update.now),
  };
}
