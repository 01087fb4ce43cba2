/**
 * `@tidings/store-sqlite/dashboard`: the dashboard's store on this package's database, apart from the
 * main entry so that an app without `@tidings/dashboard` installed needs none of its types.
 */
import { composePort, flushLayer } from '@tidings/core/store';
import type { DashboardStore } from '@tidings/dashboard';
import { dashboardOperations } from './dashboard.js';
import { migrateDashboard } from './dashboard-migrations.js';
import type { Durability, SqliteDatabase, SqliteStore } from './sqlite-store.js';

/**
 * The dashboard's port (`DashboardStore` of `@tidings/dashboard`: passwords, sessions, codes, the
 * audit log) on the database of a store that `createSqliteStore` opened: the same
 * connection, the same durability, closed with the store.
 *
 * @example
 * const store = createSqliteStore({ path: './tidings.db' });
 * app.route('/', tidingsDashboard({ tidings: createTidings({ store }), store: createSqliteDashboardStore(store) }));
 */
export function createSqliteDashboardStore(store: SqliteStore): DashboardStore {
  const database = store.capabilities?.database;
  if (database?.dialect !== 'sqlite')
    throw new TypeError('createSqliteDashboardStore needs a store made by createSqliteStore');
  // The dashboard's tables are made by its own migrations, when its store is opened.
  migrateDashboard(database.connection);
  const durableWrites = (Object.keys(DASHBOARD_STORE_DURABILITY) as (keyof DashboardStore)[]).filter(
    (name) => DASHBOARD_STORE_DURABILITY[name] === 'durable',
  );
  return composePort(dashboardOperations(database.connection), [flushLayer(durableWrites, () => database.flush())]);
}

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

/**
 * Brings the dashboard's tables on the database `migrateSqliteFile` hands to its `alsoMigrate`
 * up to date (what `tidings migrate` does), and tells their versions before and after.
 */
export function migrateSqliteDashboard(database: Pick<SqliteDatabase, 'connection'>): { from: number; to: number } {
  const db = database.connection;
  const applied = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'dashboard_migrations'")
    .get();
  const from = applied
    ? (db.prepare('SELECT coalesce(max(version), 0) AS v FROM dashboard_migrations').get() as { v: number }).v
    : 0;
  return { from, to: migrateDashboard(db) };
}
