import type { Hub, HubMessage } from '../../ports/hub.js';
import type { Logger } from '../../ports/logger.js';

/**
 * Publishes what a committed write changed without waiting: the answer depends on the commit
 * alone. Both hubs of Tidings write to this process's streams before `publish` returns and carry
 * the messages to other instances on their own time; what a hub fails to carry reaches the
 * streams through the catch-up (or, for an inbox update, the browser's read when it reconnects),
 * so a failure is logged, as `failed`, and the write stands.
 */
export function publishWithoutWaiting(
  hub: Hub,
  logger: Logger,
  messages: HubMessage[],
  failed: string,
  requestId: string | null,
): void {
  const log = (error: unknown) =>
    logger.error(failed, { ...(requestId === null ? {} : { request_id: requestId }), error: String(error) });
  try {
    hub.publish(messages).catch(log);
  } catch (error) {
    log(error);
  }
}
