import type {
  TidingsInbox,
  TidingsInboxAction,
  TidingsInboxCounts,
  TidingsInboxEvent,
  TidingsInboxItem,
  TidingsInboxListOptions,
  TidingsInboxPage,
  TidingsInboxUpdate,
  TidingsStatus,
} from '@tidings/browser';

/** A promise with its resolve and reject at hand. */
export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** A request the fake inbox was asked, whose answer the test gives. */
export interface Call<A, T> extends Deferred<T> {
  args: A;
}

/**
 * An inbox whose every request waits for the test to answer it (`lists`, `counts`, `marks`, in
 * the order they were made), and whose events the test emits (a status event changes its status).
 */
export function fakeInbox() {
  let status: TidingsStatus = 'open';
  const listeners = new Set<(event: TidingsInboxEvent) => void>();
  const lists: Call<TidingsInboxListOptions, TidingsInboxPage>[] = [];
  const counts: Call<undefined, TidingsInboxCounts>[] = [];
  const marks: Call<{ action: TidingsInboxAction; ids: readonly string[] | 'all' }, TidingsInboxUpdate>[] = [];
  const record = <A, T>(calls: Call<A, T>[], args: A) => {
    const call = { ...deferred<T>(), args };
    calls.push(call);
    return call.promise;
  };
  const inbox: TidingsInbox = {
    list: (options = {}) => record(lists, options),
    counts: () => record(counts, undefined),
    mark: (action, ids) => record(marks, { action, ids }),
    status: () => status,
    subscribe(listener) {
      const own = (event: TidingsInboxEvent) => listener(event);
      listeners.add(own);
      return () => listeners.delete(own);
    },
  };
  return {
    inbox,
    lists,
    counts,
    marks,
    listeners: () => listeners.size,
    emit(event: TidingsInboxEvent) {
      if (event.type === 'status') status = event.status;
      for (const listener of listeners) listener(event);
    },
  };
}

/** Lets the answers given settle. */
export const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Item `n`: `ntf_n`, created `n` minutes after 10:00, unread and not archived. */
export function item(n: number, overrides: Partial<TidingsInboxItem> = {}): TidingsInboxItem {
  return {
    object: 'inbox_item',
    id: `ntf_${n}`,
    recipient: 'user_42',
    title: `Notification ${n}`,
    body: null,
    url: null,
    icon: null,
    tag: null,
    data: null,
    created_at: new Date(Date.UTC(2026, 10, 29, 10, n)).toISOString(),
    seen_at: null,
    read_at: null,
    archived_at: null,
    ...overrides,
  };
}

/** Counts at `version` (a later change has a higher one). */
export function counts(unread: number, total = unread, unseen = unread, version = 1): TidingsInboxCounts {
  return { object: 'inbox_counts', total, unread, unseen, version };
}

export function page(data: TidingsInboxItem[], hasMore = false, pageCounts = counts(data.length)): TidingsInboxPage {
  return { object: 'list', data, has_more: hasMore, counts: pageCounts };
}

/** An update that made `updateCounts.version` from the version before it (unless `base` says otherwise). */
export function update(
  action: TidingsInboxAction,
  items: TidingsInboxItem[],
  updateCounts: TidingsInboxCounts,
  all = false,
  base = updateCounts.version - 1,
): TidingsInboxUpdate {
  return {
    object: 'inbox_update',
    action,
    all,
    items,
    not_found: [],
    counts: updateCounts,
    base_version: base,
    cutoff_version: all ? base : null,
    marked_at: MARKED_AT,
  };
}

/** When the updates of all items were made. */
export const MARKED_AT = '2026-11-29T12:30:00.000Z';

export const READ_AT = '2026-11-29T12:00:00.000Z';
