import type { Store } from '@tidings/core';
import {
  createJobWakeups,
  notifyJobsAfterWrites,
  notifyWebhookJobsAfterWrites,
  offerTransactionalSends,
} from '@tidings/core/store';
import type { DashboardStore } from '@tidings/dashboard';
import pg from 'pg';
import { accountOperations } from './accounts.js';
import { apiKeyOperations } from './api-keys.js';
import { browserOperations } from './browsers.js';
import { dashboardOperations } from './dashboard.js';
import { migrateDashboard } from './dashboard-migrations.js';
import { createSql, runText } from './db.js';
import { deliveryOperations } from './deliveries.js';
import { idempotencyOperations } from './idempotency.js';
import { inboxOperations } from './inbox.js';
import { jobOperations } from './jobs.js';
import { maintenanceOperations } from './maintenance.js';
import { type MigrateResult, migrate, migrations, readSchemaVersion } from './migrations.js';
import { notificationOperations } from './notifications.js';
import { type PostgresStoreOptions, resolvePostgresStoreOptions } from './options.js';
import { pendingDeliveryOperations } from './pending-deliveries.js';
import { projectAdminOperations } from './project-admin.js';
import { pushOperations } from './push.js';
import { requestLogOperations } from './request-log.js';
import { transactionalSends } from './transactional-sends.js';
import { webhookEndpointOperations } from './webhook-endpoints.js';
import { webhookMessageOperations } from './webhook-messages.js';

/**
 * A {@link Store} on PostgreSQL (node-postgres), for one instance or many sharing one
 * database. PostgreSQL is the source of truth: every answer comes from a query, nothing is
 * cached, so a key revoked or a project suspended anywhere is refused at the next request on
 * every instance. A send is one transaction (see the package README); its promise resolves after
 * the commit, with `synchronous_commit` on.
 *
 * Resolves once the schema is ready: migrated (by default), or checked to be at the latest
 * version with `migrate: false`.
 *
 * @example
 * const store = await createPostgresStore({ connectionString: 'postgres://localhost/app?schema=tidings' });
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const resolved = resolvePostgresStoreOptions(options);
  const ownPool =
    resolved.pool === null
      ? new pg.Pool({
          connectionString: resolved.connectionString!,
          max: resolved.maxConnections,
          // A send's 201 must mean the commit is durable, whatever the server's default.
          options: '-c synchronous_commit=on',
          // BEGIN and COMMIT go out with a transaction's statements, without a round trip each (db.ts).
          pipeline: true,
        })
      : null;
  const pool = ownPool ?? resolved.pool!;
  // An idle client's error (the server restarted) is reported here; the pool drops that client.
  ownPool?.on('error', () => {});
  try {
    await prepareSchema(pool, resolved.schema, resolved.migrate);
    await refuseAsynchronousCommit(pool);
  } catch (error) {
    await ownPool?.end();
    throw error;
  }
  const sql = createSql(resolved.schema);
  const { insertJobs, insertJobsText, ...jobs } = jobOperations(pool, sql);
  const {
    insertMessages: _insertMessages,
    recordEvents,
    recorded: webhookMessagesRecorded,
    ...webhookMessages
  } = webhookMessageOperations(pool, sql, insertJobs);
  const wakeups = createJobWakeups();
  const { sendStatements, ...notifications } = notificationOperations(pool, sql, resolved.usageShards, insertJobs);
  let closing: Promise<void> | null = null;
  const store: Store = {
    ...accountOperations(pool, sql),
    ...apiKeyOperations(pool, sql),
    ...webhookEndpointOperations(pool, sql),
    ...webhookMessages,
    ...idempotencyOperations(pool, sql),
    ...notifications,
    ...browserOperations(pool, sql, recordEvents),
    ...deliveryOperations(pool, sql, recordEvents),
    ...jobs,
    onJobsEnqueued: wakeups.subscribe,
    ...pendingDeliveryOperations(pool, sql),
    ...maintenanceOperations(pool, sql, recordEvents),
    ...projectAdminOperations(pool, sql),
    ...pushOperations(pool, sql, recordEvents),
    ...inboxOperations(pool, sql, recordEvents),
    ...requestLogOperations(pool, sql),
    close() {
      // A pool handed in is the host's to end.
      closing ??= ownPool ? ownPool.end() : Promise.resolve();
      return closing;
    },
  };
  notifyJobsAfterWrites(store, wakeups);
  notifyWebhookJobsAfterWrites(store, wakeups, webhookMessagesRecorded);
  offerTransactionalSends(
    store,
    transactionalSends({
      pool,
      schema: resolved.schema,
      usageShards: resolved.usageShards,
      statements: sendStatements,
      insertJobsText,
      idempotencyTable: sql.t('idempotency_keys'),
      wakeups,
    }),
  );
  let dashboard: DashboardStore | null = null;
  dashboardStores.set(store, () => {
    // The dashboard's tables are made by its own migrations, begun when its store is opened;
    // each of its methods waits for them.
    dashboard ??= afterMigration(dashboardOperations(pool, sql), migrateDashboard(pool, resolved.schema));
    return dashboard;
  });
  return store;
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

/** The dashboard's port of each store {@link createPostgresStore} opened, made at its first use. */
const dashboardStores = new WeakMap<Store, () => DashboardStore>();

/** The dashboard's port on the database of `store`, or null for a store createPostgresStore did not open. */
export function openDashboardStore(store: Store): DashboardStore | null {
  return dashboardStores.get(store)?.() ?? null;
}

async function prepareSchema(pool: pg.Pool, schema: string, apply: boolean): Promise<void> {
  if (apply) {
    await migrate(pool, schema);
    return;
  }
  const version = await readSchemaVersion(pool, schema);
  if (version !== migrations.length) {
    throw new Error(
      `The PostgreSQL schema ${schema} is at version ${version}, this @tidings/store-postgres needs ${migrations.length}: run \`tidings migrate\``,
    );
  }
}

/** A pool whose connections commit asynchronously could acknowledge a send that a crash then loses. */
async function refuseAsynchronousCommit(pool: pg.Pool): Promise<void> {
  const [row] = await runText<{ setting: string }>(pool, "SELECT current_setting('synchronous_commit') AS setting");
  if (row?.setting === 'off') {
    throw new Error(
      'createPostgresStore: the pool commits with synchronous_commit = off, which can lose an acknowledged send; turn it on for this pool',
    );
  }
}

/**
 * Applies the migrations of the schema named by the options (what `tidings migrate` runs) and
 * tells the versions before and after; with `dashboard`, those of the dashboard's tables too.
 */
export async function migratePostgres(
  options: Pick<PostgresStoreOptions, 'connectionString' | 'pool' | 'schema'> & { dashboard?: boolean },
): Promise<MigrateResult & { schema: string; dashboard?: MigrateResult }> {
  const resolved = resolvePostgresStoreOptions({ ...options, maxConnections: 1 });
  const pool = resolved.pool ?? new pg.Pool({ connectionString: resolved.connectionString!, max: 1 });
  try {
    const core = await migrate(pool, resolved.schema);
    if (options.dashboard !== true) return { ...core, schema: resolved.schema };
    return { ...core, schema: resolved.schema, dashboard: await migrateDashboard(pool, resolved.schema) };
  } finally {
    if (!resolved.pool) await pool.end();
  }
}
