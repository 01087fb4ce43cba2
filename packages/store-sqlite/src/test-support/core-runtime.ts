// What the store imports from the core at run time, and nothing else: the multi-process test
// bundles its worker with `@tidings/core` pointed here, so that it does not depend on the rest.

export { acceptedAttempt } from '../../../core/src/accepted-attempt.js';
export { idTimeFloor, newId } from '../../../core/src/ids.js';
export {
  createJobWakeups,
  notifyJobsAfterWrites,
  notifyWebhookJobsAfterWrites,
} from '../../../core/src/jobs/wakeups.js';
export { STORE_DUTIES } from '../../../core/src/ports/store/duties.js';
export { utcDay } from '../../../core/src/time.js';
export {
  anyEndpointWants,
  WEBHOOK_MESSAGE_RETENTION_MS,
  webhookJobOf,
  webhookMessagesOf,
} from '../../../core/src/webhooks/events.js';
