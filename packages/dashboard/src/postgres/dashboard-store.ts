import type { PostgresStore } from '@tidings/store-postgres';
import { createSql, poolOf } from '@tidings/store-postgres/sql';
import type { DashboardStore } from '../store.js';
import { accountOperations } from './accounts.js';
import { auditLogOperations } from './audit-log.js';
import { emailCodeOperations } from './email-codes.js';
import { maintenanceOperations } from './maintenance.js';
import { migratePostgresDashboard } from './migrations.js';
import { pendingSignInOperations } from './pending-sign-ins.js';
import { secondFactorOperations } from './second-factor.js';
import { sessionOperations } from './sessions.js';

/**
 * The dashboard's port on the pool and schema of a store that `createPostgresStore` opened
 * (`store.capabilities.database`). Its commits are durable as they return, as the store's are
 * (`synchronous_commit` on): no flush is composed around them.
 *
 * @example
 * const store = await createPostgresStore({ connectionString });
 * app.route('/', tidingsDashboard({ tidings: createTidings({ store }), store: createPostgresDashboardStore(store) }));
 */
export function createPostgresDashboardStore(store: PostgresStore): DashboardStore {
  const database = store.capabilities?.database;
  if (database?.dialect !== 'postgres') {
    throw new TypeError('createPostgresDashboardStore needs a store made by createPostgresStore');
  }
  const pool = poolOf(database);
  const sql = createSql(database.schema);
  const operations: DashboardStore = {
    ...accountOperations(pool, sql),
    ...sessionOperations(pool, sql),
    ...emailCodeOperations(pool, sql),
    ...secondFactorOperations(pool, sql),
    ...pendingSignInOperations(pool, sql),
    ...auditLogOperations(pool, sql),
    ...maintenanceOperations(pool, sql),
  };
  // The dashboard's tables are made by its own migrations, begun when its store is opened; each
  // of its methods waits for them.
  return afterMigration(operations, migratePostgresDashboard(database));
}

/** `port` with each method run once `ready` has resolved (and failing as it did, if it rejected). */
function afterMigration<Port extends object>(port: Port, ready: Promise<unknown>): Port {
  // Seen here, so that a failure is not reported as unhandled before a method is called.
  ready.catch(() => {});
  const waiting = {} as Record<string, unknown>;
  for (const [name, method] of Object.entries(port)) {
    waiting[name] =
      typeof method === 'function'
        ? async (...args: unknown[]) => {
            await ready;
            return method.apply(port, args);
          }
        : method;
  }
  return waiting as Port;
}
