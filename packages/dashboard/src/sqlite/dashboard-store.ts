import { composePort, flushLayer } from '@tidings/core/store';
import type { SqliteStore } from '@tidings/store-sqlite';
import { connectionOf } from '@tidings/store-sqlite/sql';
import { durableDashboardWrites } from '../store/durability.js';
import type { DashboardStore } from '../store.js';
import { accountOperations } from './accounts.js';
import { auditLogOperations } from './audit-log.js';
import { emailCodeOperations } from './email-codes.js';
import { maintenanceOperations } from './maintenance.js';
import { migrateSqliteDashboard } from './migrations.js';
import { pendingSignInOperations } from './pending-sign-ins.js';
import { secondFactorOperations } from './second-factor.js';
import { sessionOperations } from './sessions.js';

/**
 * The dashboard's port on the database of a store that `createSqliteStore` opened
 * (`store.capabilities.database`): the same connection, closed with the store, and the same
 * durability, composed by the core's `composePort`: a durable write (`DASHBOARD_STORE_DURABILITY`)
 * resolves once the store's flush has put its commit on disk. The dashboard's tables are made or
 * brought up to date by its own migrations, here.
 *
 * @example
 * const store = createSqliteStore({ path: './tidings.db' });
 * app.route('/', tidingsDashboard({ tidings: createTidings({ store }), store: createSqliteDashboardStore(store) }));
 */
export function createSqliteDashboardStore(store: SqliteStore): DashboardStore {
  const database = store.capabilities?.database;
  if (database?.dialect !== 'sqlite') {
    throw new TypeError('createSqliteDashboardStore needs a store made by createSqliteStore');
  }
  migrateSqliteDashboard(database);
  const db = connectionOf(database);
  const operations: DashboardStore = {
    ...accountOperations(db),
    ...sessionOperations(db),
    ...emailCodeOperations(db),
    ...secondFactorOperations(db),
    ...pendingSignInOperations(db),
    ...auditLogOperations(db),
    ...maintenanceOperations(db),
  };
  return composePort(operations, [flushLayer(durableDashboardWrites(), () => database.flush())]);
}
