import { resolve } from 'node:path';
import type { Store } from '@tidings/core';
import {
  assembleStore,
  createJobWakeups,
  type SqliteTransactionalSends,
  STORE_DUTIES,
  type StoreMethod,
} from '@tidings/core/store';
import type Database from 'better-sqlite3';
import { accountOperations } from './accounts.js';
import { apiKeyOperations } from './api-keys.js';
import { browserOperations } from './browsers.js';
import { type Checkpointer, startCheckpointer } from './checkpointer.js';
import { deliveryOperations } from './deliveries.js';
import { createGroupRead } from './group-read.js';
import { idempotencyOperations } from './idempotency.js';
import { inboxOperations } from './inbox.js';
import { jobOperations } from './jobs.js';
import { maintenanceOperations } from './maintenance.js';
import { createNotificationCache } from './notification-cache.js';
import { createSendGroupCommit, notificationOperations } from './notifications.js';
import { openDatabase } from './open-database.js';
import { type ResolvedSqliteStoreOptions, resolveSqliteStoreOptions, type SqliteStoreOptions } from './options.js';
import { projectAdminOperations } from './project-admin.js';
import { pushOperations } from './push.js';
import { type OpenRequestLog, openRequestLog } from './request-log-file.js';
import { prepareSendStatements } from './send-statements.js';
import { transactionalSends } from './transactional-sends.js';
import { createWalSync, type WalSync } from './wal-sync.js';
import { webhookEndpointOperations } from './webhook-endpoints.js';
import { webhookEventRecorder, webhookMessageInserter, webhookMessageOperations } from './webhook-messages.js';

/**
 * The store's database, for a package that keeps tables of its own beside the store's (the
 * dashboard's, made by its own migrations): the same connection, and the same durability.
 */
export interface SqliteDatabase {
  readonly dialect: 'sqlite';
  /**
   * The store's better-sqlite3 `Database`; closed with the store. Declared here by what these
   * types need of it, so that an app's types compile without `@types/better-sqlite3` (which
   * better-sqlite3 does not ship); `connectionOf` of `@tidings/store-sqlite/sql` gives it as
   * better-sqlite3 types it.
   */
  readonly connection: { readonly name: string; readonly open: boolean };
  /**
   * Resolves once every commit made before the call is on disk: a durable write of another
   * package waits for it before it answers, as the store's own do. At once where commits are
   * durable as they return (no WAL file, or `synchronous: 'full'` without one).
   */
  flush(): Promise<void>;
}

/** What a SQLite store offers beyond the port. */
export interface SqliteStoreCapabilities {
  readonly transactions: SqliteTransactionalSends;
  readonly database: SqliteDatabase;
}

/** A store made by {@link createSqliteStore}: the port, and what it offers beyond it. */
export interface SqliteStore extends Store {
  readonly capabilities: SqliteStoreCapabilities;
}

/**
 * A {@link Store} on an embedded SQLite file (better-sqlite3). Every multi-step write is one
 * IMMEDIATE transaction, so several processes sharing the file (the server and the operator
 * CLI) serialize their writes instead of failing. A key revoked or a project suspended by
 * another process is seen by the very next lookup (see `apiKeyOperations`).
 *
 * The port is async; better-sqlite3 is synchronous, so most methods run to completion within
 * the call and resolve at once. `createNotification` is group-committed: the sends of one turn
 * of the event loop share one transaction, and each resolves after that commit; so are the job
 * runner's claims, completions, retries and failures and the webhook messages' attempts, which
 * join the same groups. The hot reads (`findApiKeyByHash`, `getNotification`) are grouped
 * likewise into one read transaction at the end of the turn, after every request of the turn
 * has arrived.
 *
 * What every other write must also do is composed by the core's `assembleStore`: a durable write
 * resolves once the WAL is flushed, then the job runners hear of what it enqueued.
 *
 * @example
 * const store = createSqliteStore({ path: './tidings.db' });
 */
export function createSqliteStore(options: SqliteStoreOptions): SqliteStore {
  const resolved = resolveSqliteStoreOptions(options);
  const db = openDatabase(resolved);
  const checkpointer = backgroundCheckpoints(db, resolved);
  const walSync = resolved.synchronous === 'full' ? flushOffTheLoop(db, resolved) : null;
  const flush = walSync ? () => walSync.sync() : () => Promise.resolve();
  const sendStatements = prepareSendStatements(db);
  const groupCommit = createSendGroupCommit(db, sendStatements, walSync ? flush : undefined);
  const groupRead = createGroupRead(db);
  const cache = createNotificationCache(db, resolved.notificationCacheSize);
  const { insertJobs } = sendStatements;
  const insertMessages = webhookMessageInserter(db, insertJobs);
  const recordEvents = webhookEventRecorder(db, insertMessages);
  const wakeups = createJobWakeups();
  const requestLog = openRequestLog(db, resolved);
  const projectAdmin = projectAdminOperations(db, cache);
  let closing: Promise<void> | null = null;
  return assembleStore(
    {
      ...accountOperations(db),
      ...apiKeyOperations(db, groupRead),
      ...webhookEndpointOperations(db),
      ...webhookMessageOperations(db, insertMessages, insertJobs, groupCommit),
      ...idempotencyOperations(db),
      ...notificationOperations(db, sendStatements, groupCommit, groupRead, cache),
      ...browserOperations(db, cache, recordEvents),
      ...deliveryOperations(db, groupCommit, cache, recordEvents),
      ...pushOperations(db, cache, recordEvents, groupCommit),
      ...inboxOperations(db, recordEvents),
      ...requestLog.operations,
      ...jobOperations(db, insertJobs, groupCommit),
      ...maintenanceOperations(db, cache, recordEvents),
      ...projectAdmin,
      ...forgettingRequestsOfDeleted(projectAdmin, requestLog),
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
    },
    {
      flush: walSync ? flush : null,
      flushedByTheirOwn: GROUP_COMMITTED,
      wakeups,
      webhookMessagesRecorded: insertMessages.recorded,
    },
    {
      transactions: transactionalSends({ db, path: resolve(resolved.path), sync: flush, wakeups }),
      database: { dialect: 'sqlite', connection: db, flush },
    },
  );
}

/**
 * A deleted project's request log entries go with it, deleted once the project is: the log is in
 * a file of its own (request-log-file.ts), so in a transaction of its own, before the deletion
 * resolves. A crash between the two leaves entries that no project can list, deleted by the
 * retention's purge (or by deleting the project again).
 */
function forgettingRequestsOfDeleted(
  projects: Pick<Store, 'deleteProject' | 'deleteAccount'>,
  requestLog: OpenRequestLog,
): Pick<Store, 'deleteProject' | 'deleteAccount'> {
  return {
    async deleteProject(input) {
      const deleted = await projects.deleteProject(input);
      await requestLog.forgetProjects([input.id]);
      return deleted;
    },
    async deleteAccount(input) {
      const deleted = await projects.deleteAccount(input);
      if (deleted !== null) await requestLog.forgetProjects(deleted.projectIds);
      return deleted;
    },
  };
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
export type Durability = 'durable' | 'group' | 'redoable' | 'read';

/** The core's port's writes that the group commit flushes itself, instead of a flush after each. */
const GROUP_COMMITTED: ReadonlySet<StoreMethod> = new Set<StoreMethod>([
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
  (Object.keys(STORE_DUTIES) as StoreMethod[]).map((name): [StoreMethod, Durability] => {
    const { durability } = STORE_DUTIES[name];
    if (GROUP_COMMITTED.has(name)) return [name, 'group'];
    return [name, durability === 'none' ? 'read' : durability];
  }),
) as Record<StoreMethod, Durability>;

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
