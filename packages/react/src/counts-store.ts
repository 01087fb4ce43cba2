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

const fromCounts = ({ unread, unseen, total }: TidingsInboxCounts) => ({ unread, unseen, total, loading: false });

/** The counts of an event, if it carries them. */
export function countsOf(event: TidingsInboxEvent): TidingsInboxCounts | null {
  if (event.type === 'counts') return event.counts;
  if (event.type === 'update') return event.update.counts;
  return null;
}

/** The recipient's counts, read once and then kept current from the inbox's events. */
export function createCountsStore(inbox: TidingsInbox): Store<UnreadCountState> {
  let heard = 0; // counts events heard: a read that was under way when one came is older than it
  const store = createStore(INITIAL, () => {
    const unsubscribe = inbox.subscribe((event) => {
      const counts = countsOf(event);
      if (!counts) return;
      heard++;
      store.set({ ...fromCounts(counts), error: null });
    });
    void read(store.session());
    return unsubscribe;
  });

  async function read(session: number) {
    const before = heard;
    try {
      const counts = await inbox.counts();
      if (session === store.session() && heard === before) store.set({ ...fromCounts(counts), error: null });
    } catch (error) {
      if (session === store.session()) store.set({ loading: false, error: asError(error) });
    }
  }

  return store;
}
