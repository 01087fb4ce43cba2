/**
 * A value that React reads with `useSyncExternalStore`: `subscribe` and `getState` are bound, so
 * they can be handed to React as they are. The first listener calls `start`, the last one leaving
 * calls the function `start` returned: the store listens to the inbox only while a component shows it.
 */
export interface Store<S> {
  getState(): S;
  subscribe(listener: () => void): () => void;
}

export interface StoreControl<S> extends Store<S> {
  set(patch: Partial<S>): void;
  /** Counts the starts and stops: an answer that comes back under another session is dropped. */
  session(): number;
}

export function createStore<S>(initial: S, start: () => () => void): StoreControl<S> {
  let state = initial;
  let session = 0;
  let stop: (() => void) | null = null;
  const listeners = new Set<() => void>();
  return {
    getState: () => state,
    session: () => session,
    set(patch) {
      state = { ...state, ...patch };
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      if (listeners.size === 1) {
        session++;
        stop = start();
      }
      return () => {
        if (!listeners.delete(listener) || listeners.size > 0) return;
        session++;
        stop?.();
        stop = null;
      };
    },
  };
}

/** An error as the hooks hold it: an `Error`, whatever was thrown. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
