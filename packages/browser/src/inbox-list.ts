import type {
  TidingsInboxAction,
  TidingsInboxFilter,
  TidingsInboxItem,
  TidingsInboxPage,
  TidingsInboxUpdate,
} from './inbox-types.js';

/**
 * One list of the inbox kept equal to the server's, whatever order the changes arrive in
 * (docs/inbox.md#versions). Every change of a recipient's inbox raises its version; a list holds
 * the items as they were at one version and applies the changes after it strictly in order: one
 * that arrives early waits for those before it. A new item is shown at once, and remembered with
 * the version it was made at, so that a mark of all items made before it (its `cutoff_version`)
 * leaves it alone. A list that waits too long for a change (one lost on the way) reads its first
 * page again. Pure functions over a plain state: `<tidings-inbox>` and `@tidings/react` share them.
 */
export interface InboxList {
  /** The items held, newest first by id, as the server lists them. */
  items: TidingsInboxItem[];
  /** True when older items are left to read. */
  hasMore: boolean;
  /** The version of the inbox the items reflect; -1 until the first page is read. */
  version: number;
  /** Changes told ahead of `version`, by the version they apply to (their base). */
  ahead: Map<number, Change>;
  /** New items shown before the list reached the version they were made at: id → that version. */
  early: Map<string, number>;
  /** A next page read at a version the list has not reached yet: appended once it has. */
  waiting: TidingsInboxPage | null;
  /** The highest version the list was told of (by a change, a page or counts). */
  latest: number;
}

/** A change in the order of versions: a mark, or a new item (shown already, when it came). */
type Change = { base: number; version: number; update: TidingsInboxUpdate | null };

/** What the list needs read after a step: its first page again, the next page again, or nothing. */
export type InboxListRead = 'first' | 'next' | null;

/** A list before its first page. */
export function emptyInboxList(): InboxList {
  return { items: [], hasMore: false, version: -1, ahead: new Map(), early: new Map(), waiting: null, latest: -1 };
}

/**
 * True while the list waits for a change it has not been told: one before a change it holds, a
 * page ahead of it, or counts of a later version (the change that made them was lost on the way).
 */
export function isBehind(list: InboxList): boolean {
  return list.version >= 0 && (list.ahead.size > 0 || list.waiting !== null || list.latest > list.version);
}

/** The list, told that the inbox reached `version` (counts read or told). */
export function receiveVersion(list: InboxList, version: number): InboxList {
  return version > list.latest ? { ...list, latest: version } : list;
}

/** True when `item` belongs in a list of `filter`. */
export function matchesFilter(item: TidingsInboxItem, filter: TidingsInboxFilter): boolean {
  return (!filter.unread || item.read_at === null) && (item.archived_at !== null) === filter.archived;
}

/** `items` with `item` in its place, newest first by id; not past the end of a list with more to read. */
function placed(items: TidingsInboxItem[], item: TidingsInboxItem, hasMore: boolean): TidingsInboxItem[] {
  const index = items.findIndex((held) => held.id < item.id);
  if (index < 0) return hasMore ? items : [...items, item];
  return [...items.slice(0, index), item, ...items.slice(index)];
}

/** What a mark of all items does to one of them, as the server does it (docs/inbox.md#marking). */
function markedAll(item: TidingsInboxItem, action: TidingsInboxAction, at: string): TidingsInboxItem {
  // Only the items it changes: an unread item stays unseen through a mark of all unread.
  if ((item.archived_at !== null) !== (action === 'unarchive')) return item;
  const seen = item.seen_at ?? at;
  if (action === 'seen') return item.seen_at ? item : { ...item, seen_at: at };
  if (action === 'read') return item.read_at ? item : { ...item, read_at: at, seen_at: seen };
  if (action === 'unread') return item.read_at ? { ...item, read_at: null, seen_at: seen } : item;
  if (action === 'archive') return { ...item, archived_at: at, seen_at: seen };
  return { ...item, archived_at: null, seen_at: seen };
}

/** Whether a mark of all items may bring into a list of `filter` items it does not hold. */
function bringsUnknown(action: TidingsInboxAction, filter: TidingsInboxFilter): boolean {
  if (filter.archived) return action === 'archive';
  return action === 'unarchive' || (filter.unread && action === 'unread');
}

/** Applies one change at the list's version; a mark of all items may ask for the first page again. */
function apply(list: InboxList, change: Change, filter: TidingsInboxFilter): InboxListRead {
  const update = change.update;
  list.version = change.version;
  if (!update) return null; // a new item, shown when it came
  let items = list.items;
  if (update.all) {
    const cutoff = update.cutoff_version ?? update.base_version;
    items = items.map((item) =>
      (list.early.get(item.id) ?? Number.NEGATIVE_INFINITY) > cutoff
        ? item
        : markedAll(item, update.action, update.marked_at),
    );
  } else {
    for (const changed of update.items) {
      const at = items.findIndex((held) => held.id === changed.id);
      if (at >= 0) items = [...items.slice(0, at), changed, ...items.slice(at + 1)];
      else if (matchesFilter(changed, filter)) items = placed(items, changed, list.hasMore);
    }
  }
  list.items = items.filter((item) => matchesFilter(item, filter));
  return update.all && bringsUnknown(update.action, filter) ? 'first' : null;
}

/** Applies the changes that are next in order, then a page that waited for them. */
function drain(list: InboxList, filter: TidingsInboxFilter): InboxListRead {
  let read: InboxListRead = null;
  for (let next = list.ahead.get(list.version); next; next = list.ahead.get(list.version)) {
    list.ahead.delete(next.base);
    read = apply(list, next, filter) ?? read;
  }
  for (const [base, change] of list.ahead)
    if (change.version <= list.version || base < list.version) list.ahead.delete(base);
  for (const [id, version] of list.early) if (version <= list.version) list.early.delete(id);
  const page = list.waiting;
  if (page && page.counts.version <= list.version) {
    list.waiting = null;
    if (page.counts.version < list.version) return read ?? 'next';
    append(list, page);
  }
  return read;
}

function append(list: InboxList, page: TidingsInboxPage): void {
  const held = new Set(list.items.map((item) => item.id));
  list.items = [...list.items, ...page.data.filter((item) => !held.has(item.id))];
  list.hasMore = page.has_more;
}

function copy(list: InboxList): InboxList {
  return { ...list, ahead: new Map(list.ahead), early: new Map(list.early) };
}

/** The list after a change told (an `inbox` event, or the answer to a mark), and what to read. */
export function receiveUpdate(
  list: InboxList,
  update: TidingsInboxUpdate,
  filter: TidingsInboxFilter,
): { list: InboxList; read: InboxListRead } {
  if (update.counts.version <= list.version || update.counts.version <= update.base_version)
    return { list, read: null };
  const next = copy(list);
  next.latest = Math.max(next.latest, update.counts.version);
  next.ahead.set(update.base_version, { base: update.base_version, version: update.counts.version, update });
  return { list: next, read: list.version < 0 ? null : drain(next, filter) };
}

/**
 * The list after a new item, made at `version` of the inbox (null: not known, the list reads its
 * first page again). It shows at once, in its place, if it belongs in the list.
 */
export function receiveItem(
  list: InboxList,
  item: TidingsInboxItem,
  version: number | null,
  filter: TidingsInboxFilter,
): { list: InboxList; read: InboxListRead } {
  if (version !== null && version <= list.version) return { list, read: null };
  const next = copy(list);
  if (!next.items.some((held) => held.id === item.id) && matchesFilter(item, filter)) {
    next.items = placed(next.items, item, next.hasMore);
  }
  next.early.set(item.id, version ?? Number.POSITIVE_INFINITY);
  if (version === null) return { list: next, read: 'first' };
  next.latest = Math.max(next.latest, version);
  next.ahead.set(version - 1, { base: version - 1, version, update: null });
  return { list: next, read: list.version < 0 ? null : drain(next, filter) };
}

/**
 * The list after its first page (read at first, on a reconnect, or after waiting too long): the
 * page, and the new items made after it; then the changes told after its version.
 */
export function receiveFirstPage(
  list: InboxList,
  page: TidingsInboxPage,
  filter: TidingsInboxFilter,
): { list: InboxList; read: InboxListRead } {
  if (page.counts.version < list.version) return { list, read: 'first' };
  const next = copy(list);
  const inPage = new Set(page.data.map((item) => item.id));
  let items = page.data;
  for (const item of list.items) {
    const made = list.early.get(item.id);
    const after = made !== undefined && made !== Number.POSITIVE_INFINITY && made > page.counts.version;
    if (after && !inPage.has(item.id)) items = placed(items, item, page.has_more);
  }
  next.items = items;
  next.hasMore = page.has_more;
  next.version = page.counts.version;
  next.latest = Math.max(next.latest, page.counts.version);
  next.waiting = null;
  for (const [id, made] of next.early) if (made === Number.POSITIVE_INFINITY) next.early.delete(id);
  return { list: next, read: drain(next, filter) };
}

/** The list after a next page (`startingAfter` its last item): appended once the list is at its version. */
export function receiveNextPage(
  list: InboxList,
  page: TidingsInboxPage,
  filter: TidingsInboxFilter,
): { list: InboxList; read: InboxListRead } {
  if (list.version < 0) return { list, read: null };
  if (page.counts.version < list.version) return { list, read: 'next' };
  const next = copy(list);
  next.latest = Math.max(next.latest, page.counts.version);
  next.waiting = page;
  return { list: next, read: drain(next, filter) };
}
