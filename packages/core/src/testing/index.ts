/** `@tidings/core/testing`: helpers for testing Tidings stores and embeddings (needs vitest). */

// The fixtures the store suite is written with, for a store's own tests next to it.
export {
  DAY_MS,
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
