import type { Store } from '@tidings/core';
import { assembleStore, createJobWakeups, type PostgresTransactionalSends } from '@tidings/core/store';
import pg from 'pg';
import { accountOperations } from './accounts.js';
import { apiKeyOperations } from './api-keys.js';
import { browserOperations } from './browsers.js';
import { createSql, runText } from './db.js';
import { deliveryOperations } from './deliveries.js';
import { idempotencyOperations } from './idempotency.js';
import { inboxOperations } from './inbox.js';
import { jobOperations } from './jobs.js';
import { maintenanceOperations } from './maintenance.js';
import { type MigrateResult, migrate, migrations, readSchemaVersion } from './migrations.js';
import { notificationOperations } from './notifications.js';
import { type PostgresPool, type PostgresStoreOptions, resolvePostgresStoreOptions } from './options.js';
import { pendingDeliveryOperations } from './pending-deliveries.js';
import { projectAdminOperations } from './project-admin.js';
import { pushOperations } from './push.js';
import { requestLogOperations } from './request-log.js';
import { sendStatements } from './send-statements.js';
import { transactionalSends } from './transactional-sends.js';
import { webhookEndpointOperations } from './webhook-endpoints.js';
import { webhookMessageOperations } from './webhook-messages.js';

/**
 * The store's database, for a package that keeps tables of its own in the store's schema (the
 * dashboard's, made by its own migrations).
 */
export interface PostgresDatabase {
  readonly dialect: 'postgres';
  /**
   * The store's node-postgres pool: its own (ended with the store), or the one it was given. A
   * {@link PostgresPool}, as the `pool` option is, so that an app's types compile without
   * `@types/pg`; `poolOf` of `@tidings/store-postgres/sql` gives it as `pg.Pool`.
   */
  readonly pool: PostgresPool;
  /** The schema of the store's tables. */
  readonly schema: string;
}

/** What a PostgreSQL store offers beyond the port. */
export interface PostgresStoreCapabilities {
  readonly transactions: PostgresTransactionalSends;
  readonly database: PostgresDatabase;
}

/** A store made by {@link createPostgresStore}: the port, and what it offers beyond it. */
export interface PostgresStore extends Store {
  readonly capabilities: PostgresStoreCapabilities;
}

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
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
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
  const sends = sendStatements(sql);
  const notifications = notificationOperations(pool, sql, sends, resolved.usageShards, insertJobs);
  let closing: Promise<void> | null = null;
  // Commits are durable as they return (synchronous_commit on): no flush is composed around them.
  return assembleStore(
    {
      ...accountOperations(pool, sql),
      ...apiKeyOperations(pool, sql),
      ...webhookEndpointOperations(pool, sql),
      ...webhookMessages,
      ...idempotencyOperations(pool, sql),
      ...notifications,
      ...browserOperations(pool, sql, recordEvents),
      ...deliveryOperations(pool, sql, recordEvents),
      ...jobs,
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
    },
    { flush: null, wakeups, webhookMessagesRecorded },
    {
      transactions: transactionalSends({
        pool,
        schema: resolved.schema,
        usageShards: resolved.usageShards,
        statements: sends,
        insertJobsText,
        wakeups,
      }),
      database: { dialect: 'postgres', pool, schema: resolved.schema },
    },
  );
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
 * tells the versions before and after. With `alsoMigrate`, the tables another package keeps in
 * the schema too (`tidings migrate` passes the dashboard's migrations), given the schema's
 * database once the store's own steps are applied; its answer is `alsoMigrated`.
 */
export async function migratePostgres<Also = never>(
  options: Pick<PostgresStoreOptions, 'connectionString' | 'pool' | 'schema'> & {
    alsoMigrate?: (database: PostgresDatabase) => Promise<Also>;
  },
): Promise<MigrateResult & { schema: string; alsoMigrated?: Also }> {
  const resolved = resolvePostgresStoreOptions({ ...options, maxConnections: 1 });
  const pool = resolved.pool ?? new pg.Pool({ connectionString: resolved.connectionString!, max: 1 });
  try {
    const core = await migrate(pool, resolved.schema);
    if (!options.alsoMigrate) return { ...core, schema: resolved.schema };
    const database: PostgresDatabase = { dialect: 'postgres', pool, schema: resolved.schema };
    return { ...core, schema: resolved.schema, alsoMigrated: await options.alsoMigrate(database) };
  } finally {
    if (!resolved.pool) await pool.end();
  }
}
