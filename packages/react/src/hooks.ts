import { useMemo, useSyncExternalStore } from 'react';
import { useTidings } from './context.js';
import { createCountsStore, type UnreadCountState } from './counts-store.js';
import { createInboxStore, type InboxActions, type InboxOptions, type InboxState } from './inbox-store.js';

/** The recipient's counts for a bell's badge: read once, then kept current by the inbox's events. */
export function useUnreadCount(): UnreadCountState {
  const { inbox } = useTidings();
  const store = useMemo(() => createCountsStore(inbox), [inbox]);
  return useSyncExternalStore(store.subscribe, store.getState, store.getState);
}

/** What `useInbox` returns: the list and what changes it. */
export type InboxResult = InboxState & InboxActions;

/**
 * The recipient's inbox, a page at a time (`loadMore`), kept current by the inbox's events: new
 * items come in at the top, marks from any tab, device or the back end change the items held.
 */
export function useInbox(options: InboxOptions = {}): InboxResult {
  const { inbox } = useTidings();
  const { unread = false, archived = false, pageSize = 20 } = options;
  const store = useMemo(
    () => createInboxStore(inbox, { unread, archived, pageSize }),
    [inbox, unread, archived, pageSize],
  );
  const state = useSyncExternalStore(store.subscribe, store.getState, store.getState);
  return useMemo(() => ({ ...state, ...store.actions }), [state, store]);
}
