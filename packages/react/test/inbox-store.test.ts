import { describe, expect, it, vi } from 'vitest';
import { BEHIND_MS, createInboxStore, type InboxOptions } from '../src/inbox-store.js';
import { counts, fakeInbox, item, MARKED_AT, page, READ_AT, settle, update } from './fake-inbox.js';

/** A store over a fake inbox, listened to as a mounted component would. */
function started(options: InboxOptions = {}) {
  const fake = fakeInbox();
  const store = createInboxStore(fake.inbox, options);
  let renders = 0;
  const stop = store.subscribe(() => renders++);
  return { fake, store, stop, renders: () => renders, ids: () => store.getState().items.map(({ id }) => id) };
}

/** A started store whose first page (items 3, 2, 1 unless given) has been read. */
async function loaded(options: InboxOptions = {}, first = page([item(3), item(2), item(1)], true, counts(3))) {
  const run = started(options);
  run.fake.lists[0]!.resolve(first);
  await settle();
  return run;
}

describe('the inbox store', () => {
  it('listens to the inbox while it has a listener, and reads the first page with its filter', async () => {
    const { fake, store, stop } = started({ unread: true, pageSize: 5 });
    expect(fake.listeners()).toBe(1);
    expect(fake.lists.map(({ args }) => args)).toEqual([
      { unread: true, archived: false, limit: 5, startingAfter: undefined },
    ]);
    expect(store.getState().loading).toBe(true);
    stop();
    expect(fake.listeners()).toBe(0);
  });

  it('holds the status the connection has when a component first shows it, and again after none did', () => {
    const fake = fakeInbox();
    fake.emit({ type: 'status', status: 'connecting' });
    const store = createInboxStore(fake.inbox);
    expect(store.getState().status).toBe('connecting');
    const stop = store.subscribe(() => {});
    fake.emit({ type: 'status', status: 'open' });
    expect(store.getState().status).toBe('open');
    stop();
    fake.emit({ type: 'status', status: 'closed' });
    expect(store.getState().status).toBe('open');
    store.subscribe(() => {})();
    expect(store.getState().status).toBe('closed');
  });

  it('holds the first page, its counts and whether there is more', async () => {
    const { store, ids } = await loaded();
    expect(ids()).toEqual(['ntf_3', 'ntf_2', 'ntf_1']);
    expect(store.getState()).toMatchObject({ hasMore: true, loading: false, error: null, counts: counts(3) });
  });

  it('reads the next page after the last id, and adds only the items it does not hold', async () => {
    const { fake, store, ids } = await loaded();
    void store.actions.loadMore();
    void store.actions.loadMore();
    expect(fake.lists).toHaveLength(2);
    expect(fake.lists[1]!.args.startingAfter).toBe('ntf_1');
    fake.lists[1]!.resolve(page([item(1), item(0)], false));
    await settle();
    expect(ids()).toEqual(['ntf_3', 'ntf_2', 'ntf_1', 'ntf_0']);
    expect(store.getState().hasMore).toBe(false);
    await store.actions.loadMore();
    expect(fake.lists).toHaveLength(2);
  });

  it('puts a new item at the top once, and not in a list it does not belong to', async () => {
    const { fake, ids } = await loaded();
    fake.emit({ type: 'item', item: item(4), version: 2 });
    fake.emit({ type: 'item', item: item(4), version: 2 });
    fake.emit({ type: 'item', item: item(2), version: 1 });
    expect(ids()).toEqual(['ntf_4', 'ntf_3', 'ntf_2', 'ntf_1']);

    const archived = await loaded({ archived: true }, page([]));
    archived.fake.emit({ type: 'item', item: item(5), version: 2 });
    expect(archived.ids()).toEqual([]);
  });

  it('puts new items in the server’s order, newest first by id, whatever order they arrive in', async () => {
    const { fake, ids } = await loaded(undefined, page([item(3), item(2)], false, counts(2)));
    fake.emit({ type: 'item', item: item(6), version: 3 });
    fake.emit({ type: 'item', item: item(4), version: 5 });
    fake.emit({ type: 'item', item: item(5), version: 2 });
    fake.emit({ type: 'item', item: item(1), version: 4 });
    expect(ids()).toEqual(['ntf_6', 'ntf_5', 'ntf_4', 'ntf_3', 'ntf_2', 'ntf_1']);
    // With more to load, an item older than the last one held comes with its page.
    const more = await loaded(undefined, page([item(5), item(3)], true, counts(2)));
    more.fake.emit({ type: 'item', item: item(4), version: 3 });
    more.fake.emit({ type: 'item', item: item(2), version: 2 });
    expect(more.ids()).toEqual(['ntf_5', 'ntf_4', 'ntf_3']);
  });

  it('keeps a new item that came while the first page was read, once', async () => {
    const { fake, ids } = started();
    fake.emit({ type: 'item', item: item(5), version: 3 });
    fake.emit({ type: 'item', item: item(4), version: 2 });
    // Read at version 2: it has item 4 (made at 2), not item 5 (made at 3).
    fake.lists[0]!.resolve(page([item(4), item(3)], false, counts(2, 2, 2, 2)));
    await settle();
    expect(ids()).toEqual(['ntf_5', 'ntf_4', 'ntf_3']);
  });

  it('replaces the items an update changed, and takes its counts', async () => {
    const { fake, store } = await loaded();
    fake.emit({
      type: 'update',
      update: update('read', [item(2, { read_at: READ_AT, seen_at: READ_AT })], counts(2, 3, 2, 2)),
    });
    expect(store.getState().items.map(({ read_at }) => read_at)).toEqual([null, READ_AT, null]);
    expect(store.getState().counts).toEqual(counts(2, 3, 2, 2));
  });

  it('drops from the list an item that no longer belongs in it', async () => {
    const { fake, ids } = await loaded({ unread: true });
    fake.emit({ type: 'update', update: update('read', [item(2, { read_at: READ_AT })], counts(2, 3, 2, 2)) });
    expect(ids()).toEqual(['ntf_3', 'ntf_1']);
    fake.emit({ type: 'update', update: update('archive', [item(3, { archived_at: READ_AT })], counts(1, 2, 1, 3)) });
    expect(ids()).toEqual(['ntf_1']);
  });

  it('brings in an item that now belongs in the list, in its place among the items loaded', async () => {
    const { fake, ids } = await loaded({}, page([item(5), item(3)], true));
    fake.emit({ type: 'update', update: update('unarchive', [item(4), item(1)], counts(4, 4, 4, 3), false, 1) });
    expect(ids()).toEqual(['ntf_5', 'ntf_4', 'ntf_3']);
  });

  it('applies an update of all items to the items held, by its action', async () => {
    const { fake, store } = await loaded({}, page([item(3), item(2, { read_at: READ_AT, seen_at: READ_AT })]));
    fake.emit({ type: 'update', update: update('read', [], counts(0, 2, 0, 2), true) });
    const [third, second] = store.getState().items;
    expect(third!.read_at).toBe(MARKED_AT);
    expect(third!.seen_at).toBe(MARKED_AT);
    expect(second!.read_at).toBe(READ_AT);
    expect(store.getState().counts).toEqual(counts(0, 2, 0, 2));

    fake.emit({ type: 'update', update: update('archive', [], counts(0, 0, 0, 4), true, 2) });
    expect(store.getState().items).toEqual([]);
  });

  it('keeps the counts of the higher version, from events and pages alike', async () => {
    const { fake, store } = started();
    fake.emit({ type: 'counts', counts: counts(7, 7, 7, 3) });
    fake.lists[0]!.resolve(page([item(1)], false, counts(1, 1, 1, 2)));
    await settle();
    expect(store.getState().counts).toEqual(counts(7, 7, 7, 3));
    fake.emit({ type: 'counts', counts: counts(8, 8, 8, 4) });
    expect(store.getState().counts).toEqual(counts(8, 8, 8, 4));
  });

  it('applies updates in the order of their versions, whatever order they arrive in', async () => {
    const { fake, store } = await loaded();
    // Version 1 was read; 2 archives item 1, 3 marks all read, 4 marks item 3 unread.
    const archiveOne = update('archive', [item(1, { archived_at: READ_AT, seen_at: READ_AT })], counts(2, 2, 2, 2));
    const readAll = update('read', [], counts(0, 2, 0, 3), true);
    const unreadThree = update('unread', [item(3, { seen_at: MARKED_AT })], counts(1, 2, 0, 4));
    fake.emit({ type: 'update', update: unreadThree });
    fake.emit({ type: 'update', update: readAll });
    expect(store.getState().items.map(({ read_at }) => read_at)).toEqual([null, null, null]);
    fake.emit({ type: 'update', update: archiveOne });
    expect(store.getState().items.map(({ id, read_at }) => [id, read_at])).toEqual([
      ['ntf_3', null],
      ['ntf_2', MARKED_AT],
    ]);
    expect(store.getState().counts).toEqual(counts(1, 2, 0, 4));
  });

  it('reads the first page again when a change it waits for does not come', async () => {
    const { fake, ids } = await loaded();
    vi.useFakeTimers();
    try {
      fake.emit({ type: 'update', update: update('read', [], counts(0, 2, 0, 3), true) });
      expect(fake.lists).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(BEHIND_MS);
      expect(fake.lists).toHaveLength(2);
      fake.lists[1]!.resolve(page([item(3, { read_at: READ_AT })], false, counts(0, 1, 0, 3)));
      await vi.advanceTimersByTimeAsync(0);
      expect(ids()).toEqual(['ntf_3']);
      // Counts of a later version than the list (a change lost on the way) do the same.
      fake.emit({ type: 'counts', counts: counts(0, 1, 0, 4) });
      await vi.advanceTimersByTimeAsync(BEHIND_MS);
      expect(fake.lists).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('reads the first page again when the connection is open again', async () => {
    const { fake, ids, store } = await loaded();
    expect(store.getState().status).toBe('open');
    fake.emit({ type: 'status', status: 'reconnecting' });
    expect(store.getState().status).toBe('reconnecting');
    expect(fake.lists).toHaveLength(1);
    fake.emit({ type: 'status', status: 'open' });
    expect(store.getState().status).toBe('open');
    expect(fake.lists.map(({ args }) => args.startingAfter)).toEqual([undefined, undefined]);
    fake.emit({ type: 'status', status: 'open' });
    expect(fake.lists).toHaveLength(2);
    fake.lists[1]!.resolve(page([item(5), item(3)], true));
    await settle();
    expect(ids()).toEqual(['ntf_5', 'ntf_3']);
  });

  it('marks through the inbox and shows the answer before any event', async () => {
    const { fake, store } = await loaded();
    const marked = store.actions.markRead('ntf_3');
    expect(fake.marks[0]!.args).toEqual({ action: 'read', ids: ['ntf_3'] });
    fake.marks[0]!.resolve(update('read', [item(3, { read_at: READ_AT })], counts(2, 3, 2, 2)));
    await marked;
    expect(store.getState().items[0]!.read_at).toBe(READ_AT);
    expect(store.getState().counts).toEqual(counts(2, 3, 2, 2));
  });

  it('names each action as the inbox knows it', async () => {
    const { fake, store } = await loaded();
    void store.actions.markUnread('a');
    void store.actions.markAllRead();
    void store.actions.archive('b');
    void store.actions.unarchive('c');
    void store.actions.markSeen(['d', 'e']);
    void store.actions.markSeen([]);
    expect(fake.marks.map(({ args }) => args)).toEqual([
      { action: 'unread', ids: ['a'] },
      { action: 'read', ids: 'all' },
      { action: 'archive', ids: ['b'] },
      { action: 'unarchive', ids: ['c'] },
      { action: 'seen', ids: ['d', 'e'] },
    ]);
  });

  it('holds a failed mark or page as its error, without rejecting', async () => {
    const { fake, store } = await loaded();
    const marked = store.actions.archive('ntf_1');
    fake.marks[0]!.reject(new Error('offline'));
    await expect(marked).resolves.toBeUndefined();
    expect(store.getState().error?.message).toBe('offline');

    const more = store.actions.loadMore();
    fake.lists[1]!.reject('still offline');
    await more;
    expect(store.getState()).toMatchObject({ loading: false, error: new Error('still offline') });
  });

  it('drops the answers that come after its last listener left', async () => {
    const { fake, store, stop, renders } = started();
    const marked = store.actions.markAllRead();
    stop();
    const before = renders();
    fake.lists[0]!.resolve(page([item(1)]));
    fake.marks[0]!.resolve(update('read', [], counts(0), true));
    await marked;
    await settle();
    expect(renders()).toBe(before);
    expect(store.getState().items).toEqual([]);
  });

  it('reads the first page again when listened to again, dropping the answer of the first time', async () => {
    const { fake, store, stop, ids } = started();
    stop();
    const again = store.subscribe(() => {});
    expect(fake.listeners()).toBe(1);
    fake.lists[0]!.resolve(page([item(1)]));
    fake.lists[1]!.resolve(page([item(2)]));
    await settle();
    expect(ids()).toEqual(['ntf_2']);
    again();
    expect(fake.listeners()).toBe(0);
  });
});
