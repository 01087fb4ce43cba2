import type {
  TidingsInbox,
  TidingsInboxAction,
  TidingsInboxCounts,
  TidingsInboxEvent,
  TidingsInboxItem,
  TidingsInboxPage,
  TidingsInboxUpdate,
  TidingsStatus,
} from '@tidings/browser';
import { countsOf, laterCounts } from './counts-store.js';
import { appendPage, applyUpdate, changedIds, firstPage, type ListFilter, prependItem } from './items.js';
import { asError, createStore, type Store } from './store.js';

/** Which items `useInbox` lists, and how many a page reads. */
export interface InboxOptions {
  /** Only the unread items. @default false */
  unread?: boolean;
  /** The archived items (true) or the others (false). @default false */
  archived?: boolean;
  /** Items a page reads, 1–100. @default 20 */
  pageSize?: number;
}

/** The list as `useInbox` holds it. */
export interface InboxState {
  /** The items loaded so far, newest first. */
  items: TidingsInboxItem[];
  /** The recipient's counts, null until first read. */
  counts: TidingsInboxCounts | null;
  /** True when older items are left to load (`loadMore`). */
  hasMore: boolean;
  /** True while a page is being read. */
  loading: boolean;
  /** Why the last page or mark failed; cleared by the next one that succeeds. */
  error: Error | null;
  /**
   * The connection's status. While it is not `open`, changes made elsewhere do not reach the list;
   * once it opens again, the first page is read again.
   */
  status: TidingsStatus;
}

/**
 * What `useInbox` offers to change the inbox. The marks update the list at once from the
 * server's answer (every other tab from the inbox event); none of them rejects: a failure is
 * `error`.
 */
export interface InboxActions {
  loadMore(): Promise<void>;
  markRead(id: string): Promise<void>;
  markUnread(id: string): Promise<void>;
  markAllRead(): Promise<void>;
  archive(id: string): Promise<void>;
  unarchive(id: string): Promise<void>;
  /** Marks the items shown; ids already seen change nothing. */
  markSeen(ids: readonly string[]): Promise<void>;
}

export interface InboxStore extends Store<InboxState> {
  actions: InboxActions;
}

/** The recipient's inbox, one filtered list of it read a page at a time, kept current from its events. */
export function createInboxStore(inbox: TidingsInbox, options: InboxOptions = {}): InboxStore {
  const filter: ListFilter = { unread: options.unread ?? false, archived: options.archived ?? false };
  const limit = options.pageSize ?? 20;
  let cursor: string | undefined; // the last id of the last page read
  const versions = new Map<string, number>(); // item id → the counts version of the last update that changed it
  const initial: InboxState = {
    items: [],
    counts: null,
    hasMore: false,
    loading: true,
    error: null,
    status: inbox.status(),
  };
  const store = createStore(initial, () => {
    const unsubscribe = inbox.subscribe(onEvent);
    // The status may have changed while no component showed the list.
    if (state().status !== inbox.status()) set({ status: inbox.status() });
    void readFirst();
    return unsubscribe;
  });
  const { set, getState: state } = store;

  function onEvent(event: TidingsInboxEvent) {
    const counts = countsOf(event);
    if (event.type === 'item') set({ items: prependItem(state().items, event.item, filter) });
    if (event.type === 'update') applyAnswer(event.update);
    else if (counts) takeCounts(counts);
    if (event.type !== 'status') return;
    set({ status: event.status });
    // Back online: what was sent or marked meanwhile is read with the first page again.
    if (event.status === 'open' && !state().loading) void readFirst();
  }

  const takeCounts = (counts: TidingsInboxCounts) => set({ counts: laterCounts(state().counts, counts) });

  /** An update, to the items that no later update changed already (updates may arrive out of order). */
  function applyAnswer(update: TidingsInboxUpdate) {
    const { version } = update.counts;
    const isLater = (id: string) => (versions.get(id) ?? 0) <= version;
    const items = applyUpdate(state().items, update, filter, state().hasMore, isLater);
    for (const id of changedIds(update, state().items)) if (isLater(id)) versions.set(id, version);
    set({ items });
    takeCounts(update.counts);
  }

  /**
   * Runs `work` and hands its answer to `use`, or its error to `fail`, unless the store stopped or
   * restarted meanwhile (the component that asked is gone).
   */
  async function request<T>(work: () => Promise<T>, use: (answer: T) => void, fail: (error: Error) => void) {
    const session = store.session();
    try {
      const answer = await work();
      if (session === store.session()) use(answer);
    } catch (error) {
      if (session === store.session()) fail(asError(error));
    }
  }

  function readPage(startingAfter: string | undefined, use: (page: TidingsInboxPage) => void) {
    set({ loading: true });
    return request(
      () => inbox.list({ ...filter, limit, startingAfter }),
      (page) => {
        cursor = page.data.at(-1)?.id ?? startingAfter;
        use(page);
      },
      (error) => set({ loading: false, error }),
    );
  }

  const readFirst = () =>
    readPage(undefined, (page) => {
      set({ items: firstPage(state().items, page.data), hasMore: page.has_more, loading: false, error: null });
      takeCounts(page.counts);
    });

  const loadMore = async () => {
    if (state().loading || !state().hasMore) return;
    await readPage(cursor, (page) => {
      set({ items: appendPage(state().items, page.data), hasMore: page.has_more, loading: false, error: null });
    });
  };

  const mark = (action: TidingsInboxAction, ids: readonly string[] | 'all') =>
    ids !== 'all' && ids.length === 0
      ? Promise.resolve()
      : request(
          () => inbox.mark(action, ids),
          (update) => {
            applyAnswer(update);
            set({ error: null });
          },
          (error) => set({ error }),
        );

  return {
    getState: store.getState,
    subscribe: store.subscribe,
    actions: {
      loadMore,
      markRead: (id) => mark('read', [id]),
      markUnread: (id) => mark('unread', [id]),
      markAllRead: () => mark('read', 'all'),
      archive: (id) => mark('archive', [id]),
      unarchive: (id) => mark('unarchive', [id]),
      markSeen: (ids) => mark('seen', ids),
    },
  };
}
