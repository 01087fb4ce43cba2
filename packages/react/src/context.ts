import type { TidingsConnection } from '@tidings/browser';
import { createContext, createElement, type ReactNode, useContext } from 'react';

/** What the hooks need of a connection of `@tidings/browser` (`connect()`'s answer): its inbox. */
export type TidingsInboxConnection = Pick<TidingsConnection, 'inbox'>;

export interface TidingsProviderProps {
  /** The page's connection, from `connect()` of `@tidings/browser`. */
  connection: TidingsInboxConnection;
  children?: ReactNode;
}

const TidingsContext = createContext<TidingsInboxConnection | null>(null);

/** Hands `connection` to the hooks of the components inside it. */
export function TidingsProvider({ connection, children }: TidingsProviderProps) {
  return createElement(TidingsContext.Provider, { value: connection }, children);
}

/** The connection of the nearest {@link TidingsProvider}; throws outside one. */
export function useTidings(): TidingsInboxConnection {
  const connection = useContext(TidingsContext);
  if (!connection)
    throw new Error('useTidings() and the inbox hooks need a <TidingsProvider connection={…}> around them');
  return connection;
}
