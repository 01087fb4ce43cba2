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
export type {
  AuditAction,
  AuditEventRecord,
  AuditSource,
  ConsumeEmailCodeResult,
  CreateAccountWithPasswordResult,
  DashboardAccount,
  DashboardStore,
  EmailCodePurpose,
  InvitationRecord,
  PasskeyRecord,
  PendingSignInRecord,
  PurgedDashboardData,
  SessionRecord,
  SessionSummary,
} from './domain/dashboard-store.js';
export { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './domain/passwords.js';
export type { DashboardOptions, SignupPolicy } from './options.js';
export { createSmtpMailer } from './smtp-mailer.js';
