import type { StoreDurability } from '@tidings/core/store';
import type { DashboardStoreMethod } from '../store.js';

/**
 * What the answer of each of the port's methods promises, as the core's `STORE_DUTIES` says it
 * of its own: what a person sees (a password, an operator flag, a line of the audit log, a
 * session ended, a passkey or recovery code added, used or removed, a pending sign-in or
 * challenge used up) is `durable` and must not be lost; a new session, a one-time code, a
 * pending sign-in, a challenge and the purge are `redoable`; reads are `none`. A store whose
 * commits are not durable as they return (SQLite with its WAL flushed off the event loop) makes
 * each durable write wait for its flush. A new method fails the type check until it is named
 * here, so none skips the flush by being forgotten.
 */
export const DASHBOARD_STORE_DURABILITY = {
  findAccountByEmail: 'none',
  getDashboardAccount: 'none',
  listOperatorIds: 'none',
  searchAccounts: 'none',
  createAccountWithPassword: 'durable',
  setAccountPassword: 'durable',
  setAccountOperator: 'durable',
  setAccountEmail: 'durable',
  createSession: 'redoable',
  resumeSession: 'redoable',
  deleteSession: 'durable',
  deleteAccountSessions: 'durable',
  listAccountSessions: 'none',
  deleteAccountSession: 'durable',
  deleteOtherSessions: 'durable',
  putEmailCode: 'redoable',
  consumeEmailCode: 'redoable',
  hasEmailCode: 'none',
  listInvitations: 'none',
  revokeInvitation: 'durable',
  addPasskey: 'durable',
  listPasskeys: 'none',
  findPasskey: 'none',
  usePasskey: 'durable',
  deletePasskey: 'durable',
  replaceRecoveryCodes: 'durable',
  useRecoveryCode: 'durable',
  countRecoveryCodes: 'none',
  createPendingSignIn: 'redoable',
  findPendingSignIn: 'none',
  takePendingSignIn: 'durable',
  putWebAuthnChallenge: 'redoable',
  takeWebAuthnChallenge: 'durable',
  appendAuditEvent: 'durable',
  listAuditEvents: 'none',
  purgeExpired: 'redoable',
  deleteAccountDashboardData: 'durable',
} as const satisfies Record<DashboardStoreMethod, StoreDurability>;

/** The port's durable writes: those a flush must follow where commits are not durable as they return. */
export function durableDashboardWrites(): DashboardStoreMethod[] {
  return (Object.keys(DASHBOARD_STORE_DURABILITY) as DashboardStoreMethod[]).filter(
    (name) => DASHBOARD_STORE_DURABILITY[name] === 'durable',
  );
}
