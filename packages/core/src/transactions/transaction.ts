import type { CreateNotificationInput, CreateNotificationResult } from '../ports/store/notifications.js';
import type { Store } from '../ports/store.js';

/**
 * A PostgreSQL transaction of the application's, as Tidings uses it: one statement at a time,
 * with `$1`-style parameters, answering its rows. A node-postgres `Client` or `PoolClient` inside
 * `BEGIN` is one as it is; `@tidings/store-postgres/postgres-js`, `/drizzle`, `/kysely` and
 * `/knex` turn those libraries' transactions into one.
 */
export interface PostgresTransaction {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A statement of a {@link SqliteTransaction}, as better-sqlite3 prepares it. */
export interface SqliteStatement {
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
  run(...params: unknown[]): unknown;
}

/**
 * A better-sqlite3 `Database` of the application's, on the store's file, inside one of its
 * transactions (`db.transaction(fn)`, or `BEGIN` by hand): its `Database` object is one as it is.
 */
export interface SqliteTransaction {
  prepare(source: string): SqliteStatement;
  readonly inTransaction: boolean;
}

/**
 * A store's sends through a PostgreSQL transaction of the application's. The write duties are
 * those of `createNotification` (`STORE_DUTIES`), carried by the caller's commit: the
 * notification, its attempts, the idempotency record, the computed jobs and the live usage are
 * written through `transaction` and exist exactly when it commits. Inside the same transaction
 * the store signals the commit (`pg_notify`, which PostgreSQL delivers only on commit) to every
 * instance listening through {@link PostgresTransactionalSends.listen}, and wakes their job
 * runners.
 */
export interface PostgresTransactionalSends {
  readonly dialect: 'postgres';
  createNotification(
    transaction: PostgresTransaction,
    input: CreateNotificationInput,
  ): Promise<CreateNotificationResult>;
  /**
   * Hears of sends committed through an application's transaction by any process: `browserIds`,
   * the browsers they made attempts for; null for "may have missed some" (the listening
   * connection started or came back), after which every open stream is caught up. Resolves
   * with the function that stops listening.
   */
  listen(onCommitted: (browserIds: readonly string[] | null) => void): Promise<() => Promise<void>>;
}

/**
 * A store's sends through a better-sqlite3 transaction of the application's, on the store's
 * file. The statements run synchronously on the application's `Database`, which holds the write
 * lock; the duties are those of `createNotification`, carried by the application's commit.
 */
export interface SqliteTransactionalSends {
  readonly dialect: 'sqlite';
  createNotification(transaction: SqliteTransaction, input: CreateNotificationInput): CreateNotificationResult;
  /**
   * Resolves once the application's transaction has ended: true when it committed the
   * notification and the commit is on disk (the job runners are woken then), false when it
   * rolled back.
   */
  committed(transaction: SqliteTransaction, notificationId: string): Promise<boolean>;
}

/** What a store offers for sends through an application's transaction. */
export type TransactionalSends = PostgresTransactionalSends | SqliteTransactionalSends;

/** The sends through an application's transaction that a store offers; null when it offers none. */
export function transactionalSendsOf(store: Store): TransactionalSends | null {
  return store.capabilities.transactions ?? null;
}
