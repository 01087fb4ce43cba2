// What the store imports from the core at run time (`@tidings/core` and `@tidings/core/store`),
// and nothing else: the multi-process test bundles its worker with both pointed here, so that it
// does not depend on the rest.

export { acceptedAttempt } from '../../../core/src/delivery/accepted-attempt.js';
export { notificationColumnValues } from '../../../core/src/delivery/notification-columns.js';
export { DEFAULT_INBOX_RETENTION_DAYS } from '../../../core/src/inbox/store.js';
export {
  assembleStore,
  composePort,
  createJobWakeups,
  flushLayer,
} from '../../../core/src/ports/store/assemble.js';
export { STORE_DUTIES } from '../../../core/src/ports/store/duties.js';
export { idTimeFloor, newId } from '../../../core/src/shared/ids.js';
export { utcDay } from '../../../core/src/shared/time.js';
export {
  ATTEMPT_EVENT_SUBSCRIPTIONS,
  anyEndpointWants,
  isNotificationChange,
  WEBHOOK_MESSAGE_RETENTION_MS,
  webhookJobOf,
  webhookMessagesOf,
} from '../../../core/src/webhooks/events.js';
