import { afterEach, beforeEach, describe } from 'vitest';
import { inboxConformance } from '../inbox/conformance.js';
import type { Store } from '../ports/store.js';
import { pushConformance } from '../push/conformance.js';
import { requestLogConformance } from '../request-log/conformance.js';
import { webhookEndpointConformance } from '../webhooks/endpoint-conformance.js';
import { webhookMessageConformance } from '../webhooks/message-conformance.js';
import { accountConformance } from './conformance-accounts.js';
import { apiKeyConformance } from './conformance-api-keys.js';
import { attemptTimesConformance } from './conformance-attempt-times.js';
import { browserViewConformance } from './conformance-browser-views.js';
import { browserConformance } from './conformance-browsers.js';
import { concurrencyConformance } from './conformance-concurrency.js';
import { deliveryConformance } from './conformance-deliveries.js';
import { dutiesConformance } from './conformance-duties.js';
import { idempotencyConformance } from './conformance-idempotency.js';
import { jobConformance } from './conformance-jobs.js';
import { maintenanceConformance } from './conformance-maintenance.js';
import { notificationConformance } from './conformance-notifications.js';
import { projectAdminConformance } from './conformance-project-admin.js';
import { storedSecretConformance } from './conformance-stored-secrets.js';

/**
 * Registers the Store port's conformance tests (vitest `describe`/`it`) for one store
 * implementation. `makeStore` is called before every test and must return an empty store; the
 * suite closes it afterwards. Every store (SQLite and PostgreSQL) runs the same suite, so
 * the pipeline can rely on the port's contract rather than on one implementation.
 *
 * @example
 * runStoreConformance('sqlite :memory:', async () => createSqliteStore({ path: ':memory:' }));
 */
export function runStoreConformance(name: string, makeStore: () => Promise<Store>): void {
  describe(`Store conformance: ${name}`, () => {
    let store: Store | undefined;
    const getStore = (): Store => {
      if (!store) throw new Error('the store is only available inside a test');
      return store;
    };

    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store?.close();
      store = undefined;
    });

    accountConformance(getStore);
    apiKeyConformance(getStore);
    idempotencyConformance(getStore);
    notificationConformance(getStore);
    browserConformance(getStore);
    browserViewConformance(getStore);
    deliveryConformance(getStore);
    attemptTimesConformance(getStore);
    maintenanceConformance(getStore);
    concurrencyConformance(getStore);
    projectAdminConformance(getStore);
    jobConformance(getStore);
    webhookEndpointConformance(getStore);
    webhookMessageConformance(getStore);
    storedSecretConformance(getStore);
    pushConformance(getStore);
    inboxConformance(getStore);
    requestLogConformance(getStore);
    dutiesConformance(getStore);
  });
}
