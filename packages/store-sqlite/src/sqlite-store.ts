import type { Store } from '@tidings/core';
import { accountOperations } from './accounts.js';
import { apiKeyOperations } from './api-keys.js';
import { browserOperations } from './browsers.js';
import { deliveryOperations } from './deliveries.js';
import { createGroupRead } from './group-read.js';
import { idempotencyOperations } from './idempotency.js';
import { maintenanceOperations } from './maintenance.js';
import { createNotificationCache } from './notification-cache.js';
import { createSendGroupCommit, notificationOperations } from './notifications.js';
import { openDatabase } from './open-database.js';
import { resolveSqliteStoreOptions, type SqliteStoreOptions } from './options.js';

/**
 * A {@link Store} on an embedded SQLite file (better-sqlite3). Every multi-step write is one
 * IMMEDIATE transaction, so several processes sharing the file (the server and the operator
 * CLI) serialize their writes instead of failing. A key revoked or a project suspended by
 * another process is seen by the very next lookup (see `apiKeyOperations`).
 *
 * The port is async; better-sqlite3 is synchronous, so most methods run to completion within
 * the call and resolve at once. `createNotification` is group-committed: the sends of one turn
 * of the event loop share one transaction, and each resolves after that commit. The hot reads
 * (`findApiKeyByHash`, `getNotification`) are grouped likewise into one read transaction at the
 * end of the turn, after every request of the turn has arrived.
 *
 * @example
 * const store = createSqliteStore({ path: './tidings.db' });
 */
export function createSqliteStore(options: SqliteStoreOptions): Store {
  const resolved = resolveSqliteStoreOptions(options);
  const db = openDatabase(resolved);
  const groupCommit = createSendGroupCommit(db);
  const groupRead = createGroupRead(db);
  const cache = createNotificationCache(db, resolved.notificationCacheSize);
  return {
    ...accountOperations(db),
    ...apiKeyOperations(db, groupRead),
    ...idempotencyOperations(db),
    ...notificationOperations(db, groupCommit, groupRead, cache),
    ...browserOperations(db, cache),
    ...deliveryOperations(db, cache),
    ...maintenanceOperations(db, cache),
    async close() {
      if (!db.open) return;
      groupRead.flush();
      groupCommit.flush();
      db.close();
    },
  };
}
