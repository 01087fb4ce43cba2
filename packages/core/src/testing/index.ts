/** `@tidings/core/testing`: helpers for testing Tidings stores and embeddings (needs vitest). */
export { runStoreConformance } from './store-conformance.js';
export { stubTidings } from './stub-tidings.js';
