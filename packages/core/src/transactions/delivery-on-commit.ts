import type { StreamRegistry } from '../delivery/stream/stream-registry.js';
import type { Logger } from '../ports/logger.js';
import type { TransactionalSends } from './transaction.js';

/**
 * Sends committed through an application's PostgreSQL transaction, by any process, reach the
 * streams held here from the store (docs/transactions.md#delivery-on-commit). Resolves with the
 * function that stops listening, or null where there is nothing to listen to (SQLite, whose
 * sends are handed on in the process that commits them) or listening failed (logged).
 */
export function deliverOnCommit(
  transactional: TransactionalSends | null,
  streams: Pick<StreamRegistry, 'catchUp'>,
  logger: Logger,
): Promise<(() => Promise<void>) | null> {
  if (transactional?.dialect !== 'postgres') return Promise.resolve(null);
  return transactional
    .listen((browserIds) => streams.catchUp(browserIds))
    .catch((error: unknown) => {
      logger.error('listening for sends committed in application transactions failed', { error: String(error) });
      return null;
    });
}
