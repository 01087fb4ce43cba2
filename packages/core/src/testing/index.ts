/** `@tidings/core/testing`: helpers for testing Tidings stores and embeddings (needs vitest). */

export { type ConnectedHubs, type HubConformanceOptions, runHubConformance } from './hub-conformance.js';
export { type LimiterConformanceOptions, runLimiterConformance } from './limiter-conformance.js';
export { runStoreConformance } from './store-conformance.js';
export { stubTidings } from './stub-tidings.js';
