import { runStoreConformance } from '@tidings/core/testing';
import { createTestStore } from './test-support/test-database.js';

// Each test gets a fresh schema of its own, dropped when the suite closes the store.
runStoreConformance('postgres', () => createTestStore());
