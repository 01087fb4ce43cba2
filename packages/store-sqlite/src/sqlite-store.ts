import { resolve } from 'node:path';
import type { Store } from '@tidings/core';
import {
  createJobWakeups,
  notifyJobsAfterWrites,
  notifyWebhookJobsAfterWrites,
  offerTransactionalSends,
  STORE_DUTIES,
} from '@tidings/core/store';
import type { DashboardStore } from '@tidings/dashboard';
import type Database from 'better-sqlite3';
import { accountOperations } from './accounts.js';
import { apiKeyOperations } from './api-keys.js';
import { browserOperations } from './browsers.js';
import { type Checkpointer, startCheckpointer } from './checkpointer.js';
import { dashboardOperations } from './dashboard.js';
import { migrateDashboard } from './dashboard-migrations.js';
import { deliveryOperations } from './deliveries.js';
import { createGroupRead } from './group-read.js';
import { idempotencyOperations } from './idempotency.js';
import { inboxOperations } from './inbox.js';
import { jobInserter, jobOperations } from './jobs.js';
import { maintenanceOperations } from './maintenance.js';
import { createNotificationCache } from './notification-cache.js';
import { createSendGroupCommit, notificationOperations } from './notifications.js';
import { openDatabase } from './open-database.js';
import { type ResolvedSqliteStoreOptions, resolveSqliteStoreOptions, type SqliteStoreOptions } from './options.js';
import { projectAdminOperations } from './project-admin.js';
import { pushOperations } from './push.js';
import { type OpenRequestLog, openRequestLog } from './request-log-file.js';
import { transactionalSends } from './transactional-sends.js';
import { createWalSync, type WalSync } from './wal-sync.js';
import { webhookEndpointOperations } from './webhook-endpoints.js';
import { webhookEventRecorder, webhookMessageInserter, webhookMessageOperations } from './webhook-messages.js';

/**
 * A {@link Store} on an embedded SQLite file (better-sqlite3). Every multi-step write is one
 * IMMEDIATE transaction, so several processes sharing the file (the server and the operator
 * CLI) serialize their writes instead of failing. A key revoked or a project suspended by
 * another process is seen by the very next lookup (see `apiKeyOperations`).
 *
 * The port is async; better-sqlite3 is synchronous, so most methods run to completion within
 * the call and resolve at once. `createNotification` is group-committed: the sends of one turn
 * of the event loop share one transaction, and each resolves after that commit; so are the job
 * runner's completions, retries and failures and the webhook messages' attempts, which join the
 * same groups. The hot reads
 * (`findApiKeyByHash`, `getNotification`) are grouped likewise into one read transaction at the
 * end of the turn, after every request of the turn has arrived.
 *
 * @example
 * const store = createSqliteStore({ path: './tidings.db' });
 */
export function createSqliteStore(options: SqliteStoreOptions): Store {
  const resolved = resolveSqliteStoreOptions(options);
  const db = openDatabase(resolved);
  const checkpointer = backgroundCheckpoints(db, resolved);
  const walSync = resolved.synchronous === 'full' ? flushOffTheLoop(db, resolved) : null;
  const afterCommit = walSync ? () => walSync.sync() : undefined;
  const groupCommit = createSendGroupCommit(db, afterCommit);
  const groupRead = createGroupRead(db);
  const cache = createNotificationCache(db, resolved.notificationCacheSize);
  const insertJobs = jobInserter(db);
  const insertMessages = webhookMessageInserter(db, insertJobs);
  const recordEvents = webhookEventRecorder(db, insertMessages);
  const wakeups = createJobWakeups();
  const requestLog = openRequestLog(db, resolved);
  let closing: Promise<void> | null = null;
  const store: Store = {
    ...accountOperations(db),
    ...apiKeyOperations(db, groupRead),
    ...webhookEndpointOperations(db),
    ...webhookMessageOperations(db, insertMessages, insertJobs, groupCommit),
    ...idempotencyOperations(db),
    ...notificationOperations(db, groupCommit, groupRead, cache, insertJobs),
    ...browserOperations(db, cache, recordEvents),
    ...deliveryOperations(db, groupCommit, cache, recordEvents),
    ...pushOperations(db, cache, recordEvents, groupCommit),
    ...inboxOperations(db, recordEvents),
    ...requestLog.operations,
    ...jobOperations(db, insertJobs, groupCommit),
    onJobsEnqueued: wakeups.subscribe,
    ...maintenanceOperations(db, cache, recordEvents),
    ...projectAdminOperations(db, cache),
    close() {
      closing ??= (async () => {
        groupRead.flush();
        groupCommit.flush();
        await requestLog.close();
        await walSync?.close();
        await checkpointer?.close();
        db.close();
      })();
      return closing;
    },
  };
  forgetRequestsOfDeletedProjects(store, requestLog);
  if (walSync) flushAfter(store, DURABLE_WRITES, walSync);
  // After the flush: a runner hears of a job only once it is on disk.
  notifyJobsAfterWrites(store, wakeups);
  notifyWebhookJobsAfterWrites(store, wakeups, insertMessages.recorded);
  offerTransactionalSends(
    store,
    transactionalSends({
      db,
      path: resolve(resolved.path),
      sync: walSync ? () => walSync.sync() : () => Promise.resolve(),
      wakeups,
    }),
  );
  let dashboard: DashboardStore | null = null;
  dashboardStores.set(store, () => {
    if (!dashboard) {
      // The dashboard's tables are made by its own migrations, when its store is opened.
      migrateDashboard(db);
      dashboard = dashboardOperations(db);
      if (walSync) flushAfter(dashboard, DASHBOARD_DURABLE_WRITES, walSync);
    }
    return dashboard;
  });
  return store;
}

/**
 * A deleted project's request log entries go with it, deleted once the project is: the log is in
 * a file of its own (request-log-file.ts), so in a transaction of its own, before the deletion
 * resolves. A crash between the two leaves entries that no project can list, deleted by the
 * retention's purge (or by deleting the project again).
 */
function forgetRequestsOfDeletedProjects(store: Store, requestLog: OpenRequestLog): void {
  const { deleteProject, deleteAccount } = store;
  store.deleteProject = async (input) => {
    const deleted = await deleteProject(input);
    await requestLog.forgetProjects([input.id]);
    return deleted;
  };
  store.deleteAccount = async (input) => {
    const deleted = await deleteAccount(input);
    if (deleted !== null) await requestLog.forgetProjects(deleted.projectIds);
    return deleted;
  };
}

/** The dashboard's port of each store {@link createSqliteStore} opened, made at its first use. */
const dashboardStores = new WeakMap<Store, () => DashboardStore>();

/** The dashboard's port on the database of `store`, or null for a store createSqliteStore did not open. */
export function openDashboardStore(store: Store): DashboardStore | null {
  return dashboardStores.get(store)?.() ?? null;
}

/**
 * What each method of a port is, for durability: `durable`, a write whose answer promises that
 * the change is on disk, so it resolves only after the WAL's flush; `group`, a write the group
 * commit flushes itself (`createNotification`); `redoable`, bookkeeping that may be lost with a
 * power cut and redone (last used and seen times, purging, the record of attempts sent on a
 * stream, a new session, a one-time code); `read`, no write. Every method must be named (the
 * core's port's in `STORE_DUTIES` of the core): a new one that is not fails the type check (and
 * `durability.test.ts`), so none skips the flush by being forgotten.
 */
type Durability = 'durable' | 'group' | 'redoable' | 'read';

/** The core's port's writes that the group commit flushes itself, instead of a flush after each. */
const GROUP_COMMITTED: ReadonlySet<keyof Store> = new Set([
  'createNotification',
  'claimJobs',
  'completeJob',
  'retryJob',
  'failJob',
  'recordWebhookAttempt',
]);

/**
 * The core's port: each method's durability as the core declares it (`STORE_DUTIES`), with the
 * writes of the group commit told apart.
 */
export const STORE_DURABILITY = Object.fromEntries(
  (Object.keys(STORE_DUTIES) as (keyof Store)[]).map((name): [keyof Store, Durability] => {
    const { durability } = STORE_DUTIES[name];
    if (GROUP_COMMITTED.has(name)) return [name, 'group'];
    return [name, durability === 'none' ? 'read' : durability];
  }),
) as Record<keyof Store, Durability>;

/**
 * The dashboard's port: what a person sees (a password, an operator flag, a line of the audit
 * log, a session ended, a passkey or recovery code added, used or removed, a pending sign-in or
 * challenge used up) must not be lost; a new session, a one-time code, a pending sign-in and a
 * challenge may be.
 */
export const DASHBOARD_STORE_DURABILITY = {
  findAccountByEmail: 'read',
  getDashboardAccount: 'read',
  listOperatorIds: 'read',
  searchAccounts: 'read',
  createAccountWithPassword: 'durable',
  setAccountPassword: 'durable',
  setAccountOperator: 'durable',
  createSession: 'redoable',
  resumeSession: 'redoable',
  deleteSession: 'durable',
  deleteAccountSessions: 'durable',
  listAccountSessions: 'read',
  deleteAccountSession: 'durable',
  deleteOtherSessions: 'durable',
  setAccountEmail: 'durable',
  deleteAccountDashboardData: 'durable',
  putEmailCode: 'redoable',
  consumeEmailCode: 'redoable',
  hasEmailCode: 'read',
  listInvitations: 'read',
  revokeInvitation: 'durable',
  addPasskey: 'durable',
  listPasskeys: 'read',
  findPasskey: 'read',
  usePasskey: 'durable',
  deletePasskey: 'durable',
  replaceRecoveryCodes: 'durable',
  useRecoveryCode: 'durable',
  countRecoveryCodes: 'read',
  createPendingSignIn: 'redoable',
  findPendingSignIn: 'read',
  takePendingSignIn: 'durable',
  putWebAuthnChallenge: 'redoable',
  takeWebAuthnChallenge: 'durable',
  purgeExpired: 'redoable',
  appendAuditEvent: 'durable',
  listAuditEvents: 'read',
} as const satisfies Record<keyof DashboardStore, Durability>;

/** The names of `table`'s durable methods. */
function durableWrites<Port>(table: Record<keyof Port, Durability>): (keyof Port)[] {
  return (Object.keys(table) as (keyof Port)[]).filter((name) => table[name] === 'durable');
}

const DURABLE_WRITES = durableWrites<Store>(STORE_DURABILITY);
const DASHBOARD_DURABLE_WRITES = durableWrites<DashboardStore>(DASHBOARD_STORE_DURABILITY);

/** Makes each of the `names` writes of `port` resolve only once its commit is flushed to disk. */
function flushAfter<Port extends object>(port: Port, names: readonly (keyof Port)[], walSync: WalSync): void {
  for (const name of names) {
    const write = port[name] as (input: never) => Promise<unknown>;
    (port as Record<keyof Port, unknown>)[name] = async (input: never) => {
      const result = await write(input);
      await walSync.sync();
      return result;
    };
  }
}

/**
 * With `synchronous: 'full'` on a WAL file: commits at NORMAL and flushes the WAL on the thread
 * pool before a write resolves (wal-sync.ts), instead of an fsync inside every commit on the
 * event loop. Where there is no WAL file the connection keeps SQLite's own FULL.
 */
function flushOffTheLoop(db: Database.Database, options: ResolvedSqliteStoreOptions): WalSync | null {
  if (db.memory || db.pragma('journal_mode', { simple: true }) !== 'wal') return null;
  const walSync = createWalSync(`${resolve(options.path)}-wal`);
  if (walSync) db.pragma('synchronous = NORMAL');
  return walSync;
}

/** The committing connection's threshold while a thread checkpoints: a backstop, rarely reached. */
const BACKSTOP_CHECKPOINT_PAGES = 4000;

/** Moves checkpoints to a thread of their own, for a database file in WAL mode. */
function backgroundCheckpoints(db: Database.Database, options: ResolvedSqliteStoreOptions): Checkpointer | null {
  if (options.checkpointIntervalMs === 0 || db.memory || db.pragma('journal_mode', { simple: true }) !== 'wal') {
    return null;
  }
  db.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
  return startCheckpointer(resolve(options.path), { intervalMs: options.checkpointIntervalMs });
}
