import { describe, expect, it } from 'vitest';
import { createCountsStore } from '../src/counts-store.js';
import { counts, fakeInbox, item, settle, update } from './fake-inbox.js';

function started() {
  const fake = fakeInbox();
  const store = createCountsStore(fake.inbox);
  const stop = store.subscribe(() => {});
  return { fake, store, stop };
}

describe('the counts store', () => {
  it('reads the counts once it has a listener, and stops listening when it has none', async () => {
    const { fake, store, stop } = started();
    expect(store.getState()).toEqual({ unread: 0, unseen: 0, total: 0, loading: true, error: null });
    expect(fake.counts).toHaveLength(1);
    expect(fake.listeners()).toBe(1);
    fake.counts[0]!.resolve(counts(2, 5, 1));
    await settle();
    expect(store.getState()).toEqual({ unread: 2, unseen: 1, total: 5, loading: false, error: null });
    stop();
    expect(fake.listeners()).toBe(0);
  });

  it('follows the counts of counts and update events, not items', async () => {
    const { fake, store } = started();
    fake.counts[0]!.resolve(counts(0));
    await settle();
    fake.emit({ type: 'item', item: item(1), version: 1 });
    expect(store.getState().unread).toBe(0);
    fake.emit({ type: 'counts', counts: counts(1) });
    expect(store.getState().unread).toBe(1);
    fake.emit({ type: 'update', update: update('read', [], counts(0, 1), true) });
    expect(store.getState()).toMatchObject({ unread: 0, total: 1 });
  });

  it('keeps the counts of the higher version, whichever arrives last', async () => {
    const { fake, store } = started();
    fake.emit({ type: 'counts', counts: counts(4, 4, 4, 7) });
    fake.counts[0]!.resolve(counts(3, 3, 3, 6));
    await settle();
    expect(store.getState().unread).toBe(4);
    fake.emit({ type: 'update', update: update('read', [], counts(0, 4, 0, 5), true) });
    expect(store.getState().unread).toBe(4);
    fake.emit({ type: 'counts', counts: counts(2, 4, 2, 8) });
    expect(store.getState().unread).toBe(2);
  });

  it('holds a failed read as its error, and ignores a read answered after the last listener left', async () => {
    const { fake, store, stop } = started();
    fake.counts[0]!.reject(new Error('offline'));
    await settle();
    expect(store.getState()).toMatchObject({ loading: false, error: new Error('offline') });

    stop();
    const again = store.subscribe(() => {});
    again();
    fake.counts[1]!.resolve(counts(9));
    await settle();
    expect(store.getState().unread).toBe(0);
  });
});
