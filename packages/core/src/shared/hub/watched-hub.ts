import type { Hub, HubMessage } from '../../ports/hub.js';

/** A hub that also tells watchers of every message this process publishes or receives. */
export interface WatchedHub extends Hub {
  /**
   * Calls `listener` on every publish of this process (whichever browsers it concerns) and on
   * every message the hub carries here; returns the unsubscribe. A routing hub carries here only
   * the messages of browsers with streams here: what other processes publish for other browsers
   * is not seen (the dashboard's live view re-reads on a timer for those).
   */
  watch(listener: () => void): () => void;
}

/** Wraps a hub so that the dashboard's live view can watch it; everything else is passed on. */
export function watchHub(hub: Hub): WatchedHub {
  const watchers = new Set<() => void>();
  const watched: WatchedHub = {
    publish(messages: readonly HubMessage[]) {
      if (messages.length > 0) for (const watcher of watchers) watcher();
      return hub.publish(messages);
    },
    subscribe: (listener, onMissed) => hub.subscribe(listener, onMissed),
    close: () => hub.close(),
    ...(hub.lossless === undefined ? {} : { lossless: hub.lossless }),
    ...(hub.lossesReported === undefined ? {} : { lossesReported: hub.lossesReported }),
    ...(hub.follow && hub.unfollow
      ? {
          follow: (browserId: string) => hub.follow!(browserId),
          unfollow: (browserId: string) => hub.unfollow!(browserId),
        }
      : {}),
    watch(listener) {
      watchers.add(listener);
      const unsubscribe = hub.subscribe(() => listener());
      return () => {
        watchers.delete(listener);
        unsubscribe();
      };
    },
  };
  return watched;
}
