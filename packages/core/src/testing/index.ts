/** `@tidings/core/testing`: helpers for testing Tidings stores and embeddings (needs vitest). */

export { pushConformance } from '../push/conformance.js';
export { requestLogConformance } from '../request-log/conformance.js';
export {
  type HarnessBrowser,
  type TransactionalSendHarness,
  transactionalSendConformance,
} from '../transactions/conformance.js';
export { webhookEndpointConformance } from '../webhooks/endpoint-conformance.js';
export { webhookMessageConformance } from '../webhooks/message-conformance.js';
// Each group of the store suite alone, typed by the roles it uses: for something that implements
// only those, inside a `describe` that gives each test a fresh one (as `runStoreConformance` does).
export { accountConformance } from './conformance-accounts.js';
export { apiKeyConformance } from './conformance-api-keys.js';
export { attemptTimesConformance } from './conformance-attempt-times.js';
export { browserConformance } from './conformance-browsers.js';
export { concurrencyConformance } from './conformance-concurrency.js';
export { deliveryConformance } from './conformance-deliveries.js';
export { dutiesConformance } from './conformance-duties.js';
export { idempotencyConformance } from './conformance-idempotency.js';
export { jobConformance } from './conformance-jobs.js';
export { maintenanceConformance } from './conformance-maintenance.js';
export { notificationConformance } from './conformance-notifications.js';
export { projectAdminConformance } from './conformance-project-admin.js';
// The fixtures the store suite is written with, for a store's own tests next to it.
export {
  DAY_MS,
  type GetStore,
  readBack,
  renderForTest,
  type SendInput,
  seedBrowser,
  seedProject,
  send,
  sendCreated,
  T0,
} from './fixtures.js';
export { type ConnectedHubs, type HubConformanceOptions, runHubConformance } from './hub-conformance.js';
export { type LimiterConformanceOptions, runLimiterConformance } from './limiter-conformance.js';
export { runStoreConformance } from './store-conformance.js';
export { stubTidings } from './stub-tidings.js';
export { quietPeriod, type UntilOptions, until } from './until.js';
