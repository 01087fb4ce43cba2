import { runStoreConformance } from '@tidings/core/testing';
import { createSqliteStore } from './sqlite-store.js';

runStoreConformance('sqlite :memory:', async () => createSqliteStore({ path: ':memory:' }));
