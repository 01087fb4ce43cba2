import type { TidingsInbox, TidingsInboxCounts, TidingsInboxEvent } from '@tidings/browser';
import { asError, createStore, type Store } from './store.js';

/** What `useUnreadCount()` returns. */
export interface UnreadCountState {
  /** Items not read (and not archived). 0 until the counts are read. */
  unread: number;
  /** Items never shown in a list, read or archived. */
  unseen: number;
  /** Items not archived. */
  total: number;
  /** True until the counts are first read (or the read failed). */
  loading: boolean;
  /** Why the counts could not be read, until they are. */
  error: Error | null;
}

const INITIAL: UnreadCountState = { unread: 0, unseen: 0, total: 0, loading: true, error: null };

/** The later of two counts: the one with the higher version (updates may arrive out of order). */
export function laterCounts(held: TidingsInboxCounts | null, next: TidingsInboxCounts): TidingsInboxCounts {
  return held && held.version > next.version ? held : next;
}

/** The counts of an event, if it carries them. */
export function countsOf(event: TidingsInboxEvent): TidingsInboxCounts | null {
  if (event.type === 'counts') return event.counts;
  if (event.type === 'update') return event.update.counts;
  return null;
}

/** The recipient's counts, read once and then kept current from the inbox's events. */
export function createCountsStore(inbox: TidingsInbox): Store<UnreadCountState> {
  let held: TidingsInboxCounts | null = null;
  const store = createStore(INITIAL, () => {
    const unsubscribe = inbox.subscribe((event) => {
      const counts = countsOf(event);
      if (counts) take(counts);
    });
    void read(store.session());
    return unsubscribe;
  });

  function take(counts: TidingsInboxCounts) {
    held = laterCounts(held, counts);
    const { unread, unseen, total } = held;
    store.set({ unread, unseen, total, loading: false, error: null });
  }

  async function read(session: number) {
    try {
      const counts = await inbox.counts();
      if (session === store.session()) take(counts);
    } catch (error) {
      if (session === store.session()) store.set({ loading: false, error: asError(error) });
    }
  }

  return store;
}
