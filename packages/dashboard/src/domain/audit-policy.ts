import type {
  AccountObject,
  AdminApi,
  ApiKeyObject,
  ProjectObject,
  VapidKeyObject,
  WebhookEndpointObject,
  WebhookMessageObject,
} from '@tidings/core';
import type { AuditAction } from '../store.js';
import type { AuditEntry } from './audit.js';

/** The changes made beside the core's admin API, by the dashboard's account store. */
export type DashboardOperation = 'setAccountOperator' | 'issueSignInCode' | 'sendInvitation' | 'revokeInvitation';

/** Every operation an operator (CLI) or a customer (dashboard) can run: the audit policy covers each. */
export type AdminOperation = keyof AdminApi | DashboardOperation;

/** What the entry of each audited operation is made from: the changed object, and what else it names. */
export interface AuditSubjects {
  createAccount: { account: AccountObject; operator: boolean };
  verifyAccount: AccountObject;
  setAccountOperator: { account: Pick<AccountObject, 'id' | 'email'>; operator: boolean };
  issueSignInCode: { account: Pick<AccountObject, 'id' | 'email'>; minutes: number };
  sendInvitation: { email: string };
  revokeInvitation: { email: string };
  createProject: ProjectObject;
  renameProject: { before: ProjectObject; after: ProjectObject };
  setInboxRetention: { projectId: string; days: number };
  suspendProject: ProjectObject;
  resumeProject: ProjectObject;
  deleteProject: ProjectObject;
  createKey: ApiKeyObject;
  revokeKey: ApiKeyObject;
  createWebhookEndpoint: WebhookEndpointObject;
  updateWebhookEndpoint: WebhookEndpointObject;
  disableWebhookEndpoint: WebhookEndpointObject;
  enableWebhookEndpoint: WebhookEndpointObject;
  deleteWebhookEndpoint: WebhookEndpointObject;
  rollWebhookSecret: WebhookEndpointObject;
  resendWebhookMessage: WebhookMessageObject;
  replayWebhookMessages: { endpoint: WebhookEndpointObject; count: number; since: number };
  rotateVapidKey: VapidKeyObject;
}

/** An audited operation: the action its entry records, the project it concerns, and what it says. */
interface Audited<Subject> {
  action: AuditAction | ((subject: Subject) => AuditAction);
  projectId: (subject: Subject) => string | null;
  detail: (subject: Subject) => string;
}

/** An operation that is not audited, and why. */
interface NotAudited {
  notAudited: string;
}

const READ: NotAudited = { notAudited: 'a read changes nothing' };
const account = (subject: Pick<AccountObject, 'id' | 'email'>) => `${subject.email} (${subject.id})`;
const noProject = () => null;
const projectOf = (subject: { project_id: string }) => subject.project_id;

/** A key as the audit log names it: never its value, only its prefix. */
function keyDetail(key: ApiKeyObject): string {
  return `${key.name ?? 'unnamed'} (${key.mode}, ${key.prefix}…, ${key.id})`;
}

/** An endpoint as the audit log names it. */
function webhookDetail(endpoint: Pick<WebhookEndpointObject, 'url' | 'id'>): string {
  return `${endpoint.url} (${endpoint.id})`;
}

const endpointChange = (action: AuditAction): Audited<WebhookEndpointObject> => ({
  action,
  projectId: projectOf,
  detail: webhookDetail,
});

/**
 * The one audit policy: for every admin operation, whether the CLI and the dashboard record it in
 * the audit log and what the entry says. An operation added to the admin API fails the type check
 * until it is listed here, audited or with the reason it is not.
 */
export const AUDIT_POLICY: {
  [K in AdminOperation]: K extends keyof AuditSubjects ? Audited<AuditSubjects[K]> : NotAudited;
} = {
  createAccount: {
    action: 'account.created',
    projectId: noProject,
    detail: ({ account: created, operator }) =>
      `${created.email} (${created.id}, ${created.verified ? 'verified' : 'unverified'}${operator ? ', operator' : ''})`,
  },
  verifyAccount: { action: 'account.verified', projectId: noProject, detail: account },
  setAccountOperator: {
    action: ({ operator }) => (operator ? 'account.operator_granted' : 'account.operator_revoked'),
    projectId: noProject,
    detail: (subject) => account(subject.account),
  },
  // The code itself is a secret: the entry names the account and how long the code works.
  issueSignInCode: {
    action: 'account.sign_in_code_issued',
    projectId: noProject,
    detail: ({ account: owner, minutes }) => `${owner.email} (${owner.id}, good for ${minutes} minutes)`,
  },
  sendInvitation: { action: 'invitation.sent', projectId: noProject, detail: ({ email }) => email },
  revokeInvitation: { action: 'invitation.revoked', projectId: noProject, detail: ({ email }) => email },
  getAccount: READ,
  listAccounts: READ,
  deleteAccount: {
    notAudited: 'an account deletes itself from the dashboard, and its projects’ audit entries go with it',
  },
  createProject: { action: 'project.created', projectId: (project) => project.id, detail: (project) => project.name },
  getProject: READ,
  renameProject: {
    action: 'project.renamed',
    projectId: ({ after }) => after.id,
    detail: ({ before, after }) => `${before.name} → ${after.name}`,
  },
  listProjects: READ,
  setInboxRetention: {
    action: 'project.inbox_retention_set',
    projectId: ({ projectId }) => projectId,
    detail: ({ days }) => `inbox items kept ${days} days`,
  },
  getInboxRetention: READ,
  // Only an operator suspends or resumes a project; the reason is the entry's own field.
  suspendProject: {
    action: 'project.suspended',
    projectId: (project) => project.id,
    detail: (p) => `${p.name} (operator)`,
  },
  resumeProject: {
    action: 'project.resumed',
    projectId: (project) => project.id,
    detail: (p) => `${p.name} (operator)`,
  },
  deleteProject: { action: 'project.deleted', projectId: (project) => project.id, detail: (project) => project.name },
  createKey: { action: 'key.created', projectId: projectOf, detail: keyDetail },
  listKeys: READ,
  revokeKey: { action: 'key.revoked', projectId: projectOf, detail: keyDetail },
  getUsage: READ,
  listAllProjects: READ,
  searchProjects: READ,
  getKey: READ,
  listNotifications: READ,
  getNotification: READ,
  getNotificationDetail: READ,
  listRecipients: READ,
  getRecipient: READ,
  getBrowser: READ,
  getUsageBreakdown: READ,
  watch: READ,
  settings: { notAudited: 'the instance’s settings, read only' },
  createWebhookEndpoint: endpointChange('webhook.created'),
  listWebhookEndpoints: READ,
  getWebhookEndpoint: READ,
  updateWebhookEndpoint: endpointChange('webhook.updated'),
  disableWebhookEndpoint: endpointChange('webhook.disabled'),
  enableWebhookEndpoint: endpointChange('webhook.enabled'),
  deleteWebhookEndpoint: endpointChange('webhook.deleted'),
  rollWebhookSecret: {
    action: 'webhook.secret_rolled',
    projectId: projectOf,
    detail: (endpoint) =>
      endpoint.previous_secret_expires_at === null
        ? `${webhookDetail(endpoint)}, previous secret dropped at once`
        : `${webhookDetail(endpoint)}, previous secret valid until ${endpoint.previous_secret_expires_at}`,
  },
  listWebhookMessages: READ,
  listRequests: READ,
  getRequest: READ,
  getWebhookMessage: READ,
  resendWebhookMessage: {
    action: 'webhook.message_resent',
    projectId: projectOf,
    detail: (message) => `${message.id} ${message.event_type} (${message.endpoint_id})`,
  },
  replayWebhookMessages: {
    action: 'webhook.messages_replayed',
    projectId: ({ endpoint }) => endpoint.project_id,
    detail: ({ endpoint, count, since }) =>
      `${count} messages since ${new Date(since).toISOString()} of ${webhookDetail(endpoint)}`,
  },
  sendTestWebhookEvent: { notAudited: 'a test event changes nothing: its message is in the endpoint’s log' },
  getVapidKey: { notAudited: 'a read; a pair made on first use is no one’s change' },
  rotateVapidKey: { action: 'vapid_key.rotated', projectId: noProject, detail: (key) => key.public_key },
};

/**
 * The audit entry of an operation that changed something, as the policy words it. The caller
 * records it only when the operation changed something (a second revocation records nothing).
 */
export function auditEntryOf<K extends keyof AuditSubjects>(
  operation: K,
  subject: AuditSubjects[K],
  reason: string | null = null,
): AuditEntry {
  const rule = AUDIT_POLICY[operation] as Audited<AuditSubjects[K]>;
  return {
    projectId: rule.projectId(subject),
    action: typeof rule.action === 'function' ? rule.action(subject) : rule.action,
    detail: rule.detail(subject),
    reason,
  };
}
