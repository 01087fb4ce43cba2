import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  emptyInboxList,
  type InboxList,
  type InboxListRead,
  isBehind,
  matchesFilter,
  receiveFirstPage,
  receiveItem,
  receiveNextPage,
  receiveUpdate,
  receiveVersion,
} from './inbox-list.js';
import type {
  TidingsInboxAction,
  TidingsInboxFilter,
  TidingsInboxItem,
  TidingsInboxPage,
  TidingsInboxUpdate,
} from './inbox-types.js';

/**
 * The list model against a model of the server: random interleavings of sends (whose ids need
 * not follow the order they were made in, as on instances whose clocks differ), marks of some
 * items, marks of all items, archives, reads of pages and reconnects, with every event and answer
 * delivered in any order, some lost. Once everything has arrived (and a list that waited for a
 * lost change read its first page again), the list equals the server's: the same items, in the
 * same order, in the same state.
 */

const PAGE = 4;
const iso = (t: number) => new Date(Date.UTC(2026, 0, 1) + t * 1000).toISOString();

/** The server: items, the version of the inbox, and what a store does on each change. */
class ServerModel {
  items = new Map<string, TidingsInboxItem>();
  version = 0;
  time = 0;
  sent = 0;
  /** Whether each changed item raises the version (SQLite) or each statement (PostgreSQL). */
  constructor(readonly bumpPerItem: boolean) {}

  send(skew: number): { item: TidingsInboxItem; version: number } {
    this.time++;
    this.sent++;
    // The id begins with the sender's clock: a skewed instance makes ids out of the order of sends.
    const id = `ntf_${String(this.time * 10 + skew + 50).padStart(6, '0')}${String(this.sent).padStart(3, '0')}`;
    const item: TidingsInboxItem = {
      object: 'inbox_item',
      id,
      recipient: 'ada',
      title: `#${this.sent}`,
      body: null,
      url: null,
      icon: null,
      tag: null,
      data: null,
      created_at: iso(this.time),
      seen_at: null,
      read_at: null,
      archived_at: null,
    };
    this.items.set(id, item);
    this.version++;
    return { item, version: this.version };
  }

  /** The mark as the store's SQL makes it (packages/store-sqlite/src/inbox.ts). */
  mark(action: TidingsInboxAction, ids: string[] | 'all'): TidingsInboxUpdate {
    this.time++;
    const at = iso(this.time);
    const base = this.version;
    const changed: TidingsInboxItem[] = [];
    for (const item of [...this.items.values()].sort((a, b) => (a.id < b.id ? 1 : -1))) {
      const inScope =
        ids === 'all'
          ? action === 'unarchive'
            ? item.archived_at !== null
            : item.archived_at === null
          : ids.includes(item.id);
      if (!inScope) continue;
      const next = markedByServer(item, action, at);
      if (next === null) continue;
      this.items.set(item.id, next);
      changed.push(next);
    }
    if (changed.length > 0) this.version += this.bumpPerItem ? changed.length : 1;
    return {
      object: 'inbox_update',
      action,
      all: ids === 'all',
      items: ids === 'all' ? [] : changed,
      not_found: [],
      counts: { object: 'inbox_counts', total: 0, unread: 0, unseen: 0, version: this.version },
      base_version: changed.length > 0 ? base : this.version,
      cutoff_version: ids === 'all' ? base : null,
      marked_at: at,
    };
  }

  list(filter: TidingsInboxFilter): TidingsInboxItem[] {
    return [...this.items.values()]
      .filter((item) => matchesFilter(item, filter))
      .sort((a, b) => (a.id < b.id ? 1 : -1));
  }

  page(filter: TidingsInboxFilter, startingAfter: string | undefined): TidingsInboxPage {
    const all = this.list(filter).filter((item) => startingAfter === undefined || item.id < startingAfter);
    return {
      object: 'list',
      data: all.slice(0, PAGE),
      has_more: all.length > PAGE,
      counts: { object: 'inbox_counts', total: 0, unread: 0, unseen: 0, version: this.version },
    };
  }
}

/** An item after an action, or null when the action changes nothing of it (the store's `changes`). */
function markedByServer(item: TidingsInboxItem, action: TidingsInboxAction, at: string): TidingsInboxItem | null {
  const seen = item.seen_at ?? at;
  switch (action) {
    case 'seen':
      return item.seen_at === null ? { ...item, seen_at: at } : null;
    case 'read':
      return item.read_at === null ? { ...item, read_at: at, seen_at: seen } : null;
    case 'unread':
      return item.read_at !== null ? { ...item, read_at: null, seen_at: seen } : null;
    case 'archive':
      return item.archived_at === null ? { ...item, archived_at: at, seen_at: seen } : null;
    case 'unarchive':
      return item.archived_at !== null ? { ...item, archived_at: null, seen_at: seen } : null;
  }
}

/** What travels to the browser: events of its stream and answers to its reads. */
type InFlight =
  | { kind: 'update'; update: TidingsInboxUpdate }
  | { kind: 'item'; item: TidingsInboxItem; version: number }
  | { kind: 'first'; page: TidingsInboxPage }
  | { kind: 'next'; page: TidingsInboxPage };

type Step =
  | { kind: 'send'; skew: number }
  | { kind: 'mark'; action: TidingsInboxAction; pick: number[] }
  | { kind: 'mark-all'; action: TidingsInboxAction }
  | { kind: 'deliver'; pick: number }
  | { kind: 'lose'; pick: number }
  | { kind: 'load-more' }
  | { kind: 'reconnect' };

const actions: TidingsInboxAction[] = ['seen', 'read', 'unread', 'archive', 'unarchive'];
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('send' as const), skew: fc.integer({ min: -40, max: 40 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('mark' as const),
      action: fc.constantFrom(...actions),
      pick: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('mark-all' as const), action: fc.constantFrom(...actions) }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('deliver' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('lose' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'load-more' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reconnect' as const }) },
);

const filters: TidingsInboxFilter[] = [
  { unread: false, archived: false },
  { unread: true, archived: false },
  { unread: false, archived: true },
];

/** Runs `steps`, then lets everything arrive; returns the list and the server. */
function run(steps: Step[], filter: TidingsInboxFilter, bumpPerItem: boolean) {
  const server = new ServerModel(bumpPerItem);
  const flight: InFlight[] = [];
  let list: InboxList = emptyInboxList();
  const readFirst = () => flight.push({ kind: 'first', page: server.page(filter, undefined) });
  const readNext = () => flight.push({ kind: 'next', page: server.page(filter, list.items.at(-1)?.id) });
  const follow = (read: InboxListRead) => {
    if (read === 'first') readFirst();
    else if (read === 'next') readNext();
  };
  const deliver = (index: number) => {
    const [event] = flight.splice(index, 1);
    if (!event) return;
    const answer =
      event.kind === 'update'
        ? receiveUpdate(list, event.update, filter)
        : event.kind === 'item'
          ? receiveItem(list, event.item, event.version, filter)
          : event.kind === 'first'
            ? receiveFirstPage(list, event.page, filter)
            : receiveNextPage(list, event.page, filter);
    list = answer.list;
    follow(answer.read);
  };
  readFirst();
  for (const s of steps) {
    if (s.kind === 'send') {
      const { item, version } = server.send(s.skew);
      flight.push({ kind: 'item', item, version });
    } else if (s.kind === 'mark' || s.kind === 'mark-all') {
      const ids = [...server.items.keys()].sort();
      const named = s.kind === 'mark' ? s.pick.map((n) => ids[n % Math.max(ids.length, 1)]!).filter(Boolean) : 'all';
      if (named !== 'all' && named.length === 0) continue;
      const update = server.mark(s.action, named);
      if (update.counts.version > update.base_version) flight.push({ kind: 'update', update });
    } else if (s.kind === 'deliver') {
      if (flight.length) deliver(s.pick % flight.length);
    } else if (s.kind === 'lose') {
      // A lost event of the stream (a hub that dropped it); answers to reads are never lost.
      const events = flight
        .map((event, index) => ({ event, index }))
        .filter(({ event }) => event.kind === 'update' || event.kind === 'item');
      const lost = events[s.pick % Math.max(events.length, 1)];
      if (lost) flight.splice(lost.index, 1);
    } else if (s.kind === 'load-more') {
      if (list.version >= 0 && list.hasMore) readNext();
    } else {
      // A reconnect: what the stream carried meanwhile is gone; the list reads its first page.
      for (let i = flight.length - 1; i >= 0; i--)
        if (flight[i]!.kind === 'update' || flight[i]!.kind === 'item') flight.splice(i, 1);
      readFirst();
    }
  }
  // Everything arrives, in order now; a list still waiting for a lost change reads its first page
  // (its timer), as many times as it takes.
  for (let round = 0; round < 20; round++) {
    while (flight.length) deliver(0);
    // The counts the SDK reads after news and after each reconnect tell the inbox's version.
    list = receiveVersion(list, server.version);
    if (!isBehind(list)) break;
    readFirst();
  }
  return { list, server };
}

function expectConverged(list: InboxList, server: ServerModel, filter: TidingsInboxFilter) {
  expect(isBehind(list)).toBe(false);
  expect(list.version).toBe(server.version);
  const expected = server.list(filter);
  expect(list.items).toEqual(expected.slice(0, list.items.length));
  if (!list.hasMore) expect(list.items).toEqual(expected);
}

describe('an inbox list', () => {
  it('equals the server’s after any interleaving of sends, marks, marks of all, archives, reads and reconnects', () => {
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 1, maxLength: 60 }),
        fc.constantFrom(...filters),
        fc.boolean(),
        (steps, filter, bumpPerItem) => {
          const { list, server } = run(steps, filter, bumpPerItem);
          expectConverged(list, server, filter);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('leaves alone a new item that a mark of all items crossed (its cut-off is before the item)', () => {
    const filter = filters[0]!;
    const server = new ServerModel(true);
    let list = receiveFirstPage(emptyInboxList(), server.page(filter, undefined), filter).list;
    const old = server.send(0);
    const markAll = server.mark('read', 'all');
    const crossing = server.send(0);
    // The new item arrives before the mark of all that was made before it.
    list = receiveItem(list, old.item, old.version, filter).list;
    list = receiveItem(list, crossing.item, crossing.version, filter).list;
    expect(list.items.map((item) => item.read_at)).toEqual([null, null]);
    list = receiveUpdate(list, markAll, filter).list;
    expect(list.items).toEqual(server.list(filter));
    expect(list.items.find((item) => item.id === crossing.item.id)?.read_at).toBeNull();
    expect(list.items.find((item) => item.id === old.item.id)?.read_at).toBe(markAll.marked_at);
  });

  it('holds a change that came early until those before it have come', () => {
    const filter = filters[0]!;
    const server = new ServerModel(true);
    const other = server.send(0);
    const sent = server.send(1);
    let list = receiveFirstPage(emptyInboxList(), server.page(filter, undefined), filter).list;
    const archived = server.mark('archive', [sent.item.id]);
    const readAll = server.mark('read', 'all');
    list = receiveUpdate(list, readAll, filter).list;
    expect(list.items).toEqual([sent.item, other.item]);
    expect(isBehind(list)).toBe(true);
    list = receiveUpdate(list, archived, filter).list;
    expect(list.items).toEqual(server.list(filter));
    expect(list.items.map((item) => item.id)).toEqual([other.item.id]);
    expect(isBehind(list)).toBe(false);
    // Unarchived: archived, but never read, since the mark of all came after the archive.
    const unarchived = server.mark('unarchive', [sent.item.id]);
    list = receiveUpdate(list, unarchived, filter).list;
    expect(list.items).toEqual(server.list(filter));
    expect(list.items[0]?.read_at).toBeNull();
  });
});
