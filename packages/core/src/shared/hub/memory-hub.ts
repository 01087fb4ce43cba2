import { type Hub, type HubMessage, hubMessageBrowserId } from '../../ports/hub.js';

/**
 * The in-process hub: every published message of a browser this process follows, and every
 * message of the whole deployment, reaches every subscriber, synchronously and in order. A
 * multi-process deployment replaces it with a hub that carries the same messages over Redis
 * (`createRedisHub` of `@tidings/redis`).
 */
export function createMemoryHub(): Hub {
  const listeners = new Set<(message: HubMessage) => void>();
  const followed = new Map<string, number>();
  return {
    lossless: true,
    async publish(messages) {
      for (const message of messages) {
        const browserId = hubMessageBrowserId(message);
        if (browserId !== null && !followed.has(browserId)) continue;
        for (const listener of listeners) listener(message);
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    follow(browserId) {
      followed.set(browserId, (followed.get(browserId) ?? 0) + 1);
      return Promise.resolve();
    },
    unfollow(browserId) {
      const left = (followed.get(browserId) ?? 0) - 1;
      if (left > 0) followed.set(browserId, left);
      else followed.delete(browserId);
    },
    async close() {
      listeners.clear();
      followed.clear();
    },
  };
}
