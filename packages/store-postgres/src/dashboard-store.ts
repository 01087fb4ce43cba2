/**
 * `@tidings/store-postgres/dashboard`: the dashboard's store on this package's database, apart from the
 * main entry so that an app without `@tidings/dashboard` installed needs none of its types.
 */
import type { DashboardStore } from '@tidings/dashboard';
import { dashboardOperations } from './dashboard.js';
import { migrateDashboard } from './dashboard-migrations.js';
import { createSql } from './db.js';
import type { MigrateResult } from './migrations.js';
import type { PostgresDatabase, PostgresStore } from './postgres-store.js';

/**
 * The dashboard's port (`DashboardStore` of `@tidings/dashboard`: passwords, sessions, codes, the
 * audit log) on the pool and schema of a store that `createPostgresStore` opened.
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
  // The dashboard's tables are made by its own migrations, begun when its store is opened; each
  // of its methods waits for them.
  return afterMigration(
    dashboardOperations(database.pool, createSql(database.schema)),
    migrateDashboard(database.pool, database.schema),
  );
}

/**
 * Brings the dashboard's tables in the schema `migratePostgres` hands to its `alsoMigrate` up to
 * date (what `tidings migrate` does), and tells their versions before and after.
 */
export function migratePostgresDashboard(database: Pick<PostgresDatabase, 'pool' | 'schema'>): Promise<MigrateResult> {
  return migrateDashboard(database.pool, database.schema);
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
