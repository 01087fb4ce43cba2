import {
  emptyInboxList,
  type InboxList,
  type InboxListRead,
  isBehind,
  receiveFirstPage,
  receiveItem,
  receiveNextPage,
  receiveUpdate,
  receiveVersion,
  type TidingsInbox,
  type TidingsInboxAction,
  type TidingsInboxCounts,
  type TidingsInboxEvent,
  type TidingsInboxFilter,
  type TidingsInboxItem,
  type TidingsStatus,
} from '@tidings/browser';
import { laterCounts } from './counts-store.js';
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

/** How long a list waits for a change it was not told before it reads its first page again. */
export const BEHIND_MS = 3000;

/**
 * The recipient's inbox, one filtered list of it read a page at a time, kept equal to the
 * server's from its events: the changes apply in the order of the inbox's versions, whatever order
 * they arrive in (`@tidings/browser`'s list model, docs/inbox.md#versions).
 */
export function createInboxStore(inbox: TidingsInbox, options: InboxOptions = {}): InboxStore {
  const filter: TidingsInboxFilter = { unread: options.unread ?? false, archived: options.archived ?? false };
  const limit = options.pageSize ?? 20;
  let list: InboxList = emptyInboxList();
  let readingFirst = false;
  let firstQueued = false;
  let behindTimer: ReturnType<typeof setTimeout> | null = null;
  const initial: InboxState = {
    items: [],
    counts: null,
    hasMore: false,
    loading: true,
    error: null,
    status: inbox.status(),
  };
  const store = createStore(initial, () => {
    list = emptyInboxList();
    readingFirst = false;
    firstQueued = false;
    const unsubscribe = inbox.subscribe(onEvent);
    // The status may have changed while no component showed the list.
    if (state().status !== inbox.status()) set({ status: inbox.status() });
    void readFirst();
    return () => {
      unsubscribe();
      if (behindTimer) clearTimeout(behindTimer);
      behindTimer = null;
    };
  });
  const { set, getState: state } = store;

  function onEvent(event: TidingsInboxEvent) {
    if (event.type === 'item') step(receiveItem(list, event.item, event.version, filter));
    else if (event.type === 'update') {
      step(receiveUpdate(list, event.update, filter));
      takeCounts(event.update.counts);
    } else if (event.type === 'counts') {
      takeCounts(event.counts);
      step({ list: receiveVersion(list, event.counts.version), read: null });
    } else {
      set({ status: event.status });
      // Back online: what was sent or marked meanwhile is read with the first page again.
      if (event.status === 'open' && list.version >= 0) void readFirst();
    }
  }

  const takeCounts = (counts: TidingsInboxCounts) => set({ counts: laterCounts(state().counts, counts) });

  /** Takes the list a step left, shows it, reads what it asks for, and watches that it is not left behind. */
  function step(next: { list: InboxList; read: InboxListRead }) {
    list = next.list;
    if (state().items !== list.items || state().hasMore !== list.hasMore) {
      set({ items: list.items, hasMore: list.hasMore });
    }
    if (next.read === 'first') void readFirst();
    else if (next.read === 'next') void readNext();
    if (!isBehind(list)) {
      if (behindTimer) clearTimeout(behindTimer);
      behindTimer = null;
    } else if (!behindTimer) {
      // A change it was not told (lost on the way): the first page again, after a while.
      behindTimer = setTimeout(() => {
        behindTimer = null;
        if (isBehind(list)) void readFirst();
      }, BEHIND_MS);
    }
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

  /** Reads the first page: one read at a time, and one more after it for whatever asked meanwhile. */
  async function readFirst(): Promise<void> {
    if (readingFirst) {
      firstQueued = true;
      return;
    }
    readingFirst = true;
    set({ loading: true });
    const session = store.session();
    await request(
      () => inbox.list({ ...filter, limit }),
      (page) => {
        takeCounts(page.counts);
        step(receiveFirstPage(list, page, filter));
        set({ loading: false, error: null });
      },
      (error) => set({ loading: false, error }),
    );
    if (session !== store.session()) return;
    readingFirst = false;
    if (firstQueued) {
      firstQueued = false;
      await readFirst();
    }
  }

  function readNext(): Promise<void> {
    set({ loading: true });
    return request(
      () => inbox.list({ ...filter, limit, startingAfter: list.items.at(-1)?.id }),
      (page) => {
        takeCounts(page.counts);
        step(receiveNextPage(list, page, filter));
        set({ loading: false, error: null });
      },
      (error) => set({ loading: false, error }),
    );
  }

  const loadMore = async () => {
    if (state().loading || !state().hasMore) return;
    await readNext();
  };

  const mark = (action: TidingsInboxAction, ids: readonly string[] | 'all') =>
    ids !== 'all' && ids.length === 0
      ? Promise.resolve()
      : request(
          () => inbox.mark(action, ids),
          (update) => {
            step(receiveUpdate(list, update, filter));
            takeCounts(update.counts);
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
