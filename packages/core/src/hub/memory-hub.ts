import type { Hub, HubMessage } from '../ports/hub.js';

/**
 * The in-process hub: every published message reaches every subscriber of this process,
 * synchronously and in order. A multi-process deployment replaces it with a hub that carries
 * the same messages over Redis (`createRedisHub` of `@tidings/redis`).
 */
export function createMemoryHub(): Hub {
  const listeners = new Set<(message: HubMessage) => void>();
  return {
    lossless: true,
    async publish(messages) {
      for (const message of messages) {
        for (const listener of listeners) listener(message);
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    async close() {
      listeners.clear();
    },
  };
}
