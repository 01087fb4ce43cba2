export { tidingsDashboard } from './app.js';
export { type AccountService, type AccountServiceOptions, createAccountService } from './domain/accounts.js';
export { type AuditActor, type AuditEntry, auditActorOf, recordAudit } from './domain/audit.js';
export {
  type AdminOperation,
  AUDIT_POLICY,
  type AuditSubjects,
  auditEntryOf,
  type DashboardOperation,
} from './domain/audit-policy.js';
export { normaliseEmail } from './domain/codes.js';
export { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './domain/passwords.js';
export type { DashboardOptions, SignupPolicy } from './options.js';
export { createSmtpMailer } from './smtp-mailer.js';
export { DASHBOARD_STORE_DURABILITY } from './store/durability.js';
export type {
  AuditAction,
  AuditEventRecord,
  AuditLogStore,
  AuditSource,
  ConsumeEmailCodeResult,
  CreateAccountWithPasswordResult,
  DashboardAccount,
  DashboardAccountStore,
  DashboardMaintenanceStore,
  DashboardStore,
  DashboardStoreMethod,
  EmailCodePurpose,
  EmailCodeStore,
  InvitationRecord,
  PasskeyRecord,
  PendingSignInRecord,
  PendingSignInStore,
  PurgedDashboardData,
  SecondFactorStore,
  SessionRecord,
  SessionStore,
  SessionSummary,
} from './store.js';
