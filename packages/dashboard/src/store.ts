import type { DashboardAccountStore } from './store/accounts.js';
import type { AuditLogStore } from './store/audit-log.js';
import type { EmailCodeStore } from './store/email-codes.js';
import type { DashboardMaintenanceStore } from './store/maintenance.js';
import type { PendingSignInStore } from './store/pending-sign-ins.js';
import type { SecondFactorStore } from './store/second-factor.js';
import type { SessionStore } from './store/sessions.js';

export type * from './store/accounts.js';
export type * from './store/audit-log.js';
export type * from './store/email-codes.js';
export type * from './store/maintenance.js';
export type * from './store/pending-sign-ins.js';
export type * from './store/second-factor.js';
export type * from './store/sessions.js';

/**
 * The dashboard's own port: what signing in to the web dashboard needs, kept out of the core's
 * `Store`. Passwords, the operator flag, sessions, one-time codes (verification, reset,
 * invitation, sign-in), the second factor and the audit log. Projects, keys, usage and the log
 * of sends are the core's: the pages reach them through `tidings.admin`.
 *
 * The port is the sum of its roles (store/): a part of the dashboard that needs only some of
 * them takes only those. Its tables live on the database of a store of the core, made by the
 * dashboard's own migrations: `createSqliteDashboardStore(store)` of `@tidings/dashboard/sqlite`
 * and `createPostgresDashboardStore(store)` of `@tidings/dashboard/postgres` implement it, and
 * run `runDashboardStoreConformance` of `@tidings/dashboard/testing`. As in the core's ports,
 * each method is one atomic operation and times are passed in by the caller.
 */
export interface DashboardStore
  extends DashboardAccountStore,
    SessionStore,
    EmailCodeStore,
    SecondFactorStore,
    PendingSignInStore,
    AuditLogStore,
    DashboardMaintenanceStore {}

/** The names of the port's methods. */
export type DashboardStoreMethod = keyof DashboardStore;
