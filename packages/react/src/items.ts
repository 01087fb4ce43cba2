import type { TidingsInboxAction, TidingsInboxItem, TidingsInboxUpdate } from '@tidings/browser';

/** Which items a list shows: the unread ones only or all, the archived ones or the others. */
export interface ListFilter {
  unread: boolean;
  archived: boolean;
}

/** True when `item` belongs in a list of `filter`. */
export function matches(item: TidingsInboxItem, filter: ListFilter): boolean {
  return (!filter.unread || item.read_at === null) && (item.archived_at !== null) === filter.archived;
}

const holds = (items: readonly TidingsInboxItem[], id: string) => items.some((item) => item.id === id);

/** `items` and then the items of a next page that `items` does not hold yet. */
export function appendPage(items: TidingsInboxItem[], page: readonly TidingsInboxItem[]): TidingsInboxItem[] {
  return [...items, ...page.filter((item) => !holds(items, item.id))];
}

/**
 * A first page, after the items already held that are newer than it (a new item that arrived
 * while the page was read). Ids order the items, newest first, as the server orders them.
 */
export function firstPage(held: readonly TidingsInboxItem[], page: TidingsInboxItem[]): TidingsInboxItem[] {
  const newest = page[0]?.id ?? '';
  return [...held.filter((item) => item.id > newest), ...page];
}

/** A new item at the top, unless it is held already or does not belong in the list. */
export function prependItem(items: TidingsInboxItem[], item: TidingsInboxItem, filter: ListFilter): TidingsInboxItem[] {
  return holds(items, item.id) || !matches(item, filter) ? items : [item, ...items];
}

/** What an action on all items does to one of them, as the server does it (docs/inbox.md). */
const MARK_ALL: Record<TidingsInboxAction, (item: TidingsInboxItem, at: string) => TidingsInboxItem> = {
  seen: (item, at) => ({ ...item, seen_at: item.seen_at ?? at }),
  read: (item, at) => ({ ...item, read_at: item.read_at ?? at, seen_at: item.seen_at ?? at }),
  unread: (item) => ({ ...item, read_at: null }),
  archive: (item, at) => ({ ...item, archived_at: item.archived_at ?? at, seen_at: item.seen_at ?? at }),
  unarchive: (item) => ({ ...item, archived_at: null }),
};

/** `item` after `action` on all items: `unarchive` changes the archived ones, every other action the others. */
export function markedAll(item: TidingsInboxItem, action: TidingsInboxAction, at: string): TidingsInboxItem {
  const archived = item.archived_at !== null;
  if (archived !== (action === 'unarchive')) return item;
  return MARK_ALL[action](item, at);
}

/** Where `item` goes among `items`, newest first; -1 past the end of a list that has more to load. */
function placeOf(items: readonly TidingsInboxItem[], item: TidingsInboxItem, hasMore: boolean): number {
  const index = items.findIndex((held) => held.id < item.id);
  if (index >= 0) return index;
  return hasMore ? -1 : items.length;
}

/** `items` with `item` put in its place, when that place is among the items loaded. */
function insertInOrder(items: TidingsInboxItem[], item: TidingsInboxItem, hasMore: boolean): TidingsInboxItem[] {
  const index = placeOf(items, item, hasMore);
  return index < 0 ? items : [...items.slice(0, index), item, ...items.slice(index)];
}

/**
 * The items after an update: the changed items replace the ones held (and come in when they now
 * belong in the list), an update of all items changes the held items by its action, and an item
 * that no longer belongs in the list leaves it. Only the items `isLater` accepts change: not
 * those a later update changed already.
 */
export function applyUpdate(
  items: TidingsInboxItem[],
  update: TidingsInboxUpdate,
  filter: ListFilter,
  hasMore: boolean,
  isLater: (id: string) => boolean = () => true,
  at = new Date().toISOString(),
): TidingsInboxItem[] {
  if (update.all) {
    const marked = items.map((item) => (isLater(item.id) ? markedAll(item, update.action, at) : item));
    return marked.filter((item) => matches(item, filter));
  }
  const changes = update.items.filter((changed) => isLater(changed.id));
  let next = items.map((item) => changes.find((changed) => changed.id === item.id) ?? item);
  for (const changed of changes) {
    if (!holds(next, changed.id) && matches(changed, filter)) next = insertInOrder(next, changed, hasMore);
  }
  return next.filter((item) => matches(item, filter));
}

/** The ids an update changed: its items, or, for an update of all items, the ones held. */
export function changedIds(update: TidingsInboxUpdate, held: readonly TidingsInboxItem[]): string[] {
  return (update.all ? held : update.items).map(({ id }) => id);
}
