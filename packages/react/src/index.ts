/**
 * `@tidings/react`: the recipient's inbox of Tidings in React: `useUnreadCount()` for a bell,
 * `useInbox()` for the list, under a `<TidingsProvider>` that holds the browser SDK's connection.
 * @packageDocumentation
 */
export { type TidingsInboxConnection, TidingsProvider, type TidingsProviderProps, useTidings } from './context.js';
export type { UnreadCountState } from './counts-store.js';
export { type InboxResult, useInbox, useUnreadCount } from './hooks.js';
export type { InboxActions, InboxOptions, InboxState } from './inbox-store.js';
