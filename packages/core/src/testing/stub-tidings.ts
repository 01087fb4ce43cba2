import type { Tidings } from '../tidings.js';

/**
 * A Tidings instance for testing a host adapter: the given `fetch` and `handles`, and the rest
 * inert (no admin, no streams). The adapter is then tested without a store or a core.
 */
export function stubTidings(parts: Pick<Tidings, 'fetch' | 'handles'>): Tidings {
  return {
    fetch: parts.fetch,
    handles: parts.handles,
    admin: {} as Tidings['admin'],
    notifications: {} as Tidings['notifications'],
    project: () => Promise.reject(new Error('stubTidings: project is not stubbed')),
    createConnectToken: () => Promise.reject(new Error('stubTidings: createConnectToken is not stubbed')),
    sweep: async () => {},
    openStreams: () => 0,
    close: async () => {},
  };
}
