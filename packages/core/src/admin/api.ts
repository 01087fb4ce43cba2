import {
  type AccountObject,
  type ApiKeyObject,
  accountObject,
  apiKeyObject,
  type CreatedApiKeyObject,
  type ProjectObject,
  projectObject,
  type UsageObject,
  usageObject,
} from '../delivery/serialize.js';
import type { FeatureSettings } from '../features.js';
import type { ResolvedOptionsWith } from '../options.js';
import { TidingsError } from '../pipeline/errors.js';
import type { Limiter } from '../ports/limiter.js';
import type { KeyMode } from '../ports/records.js';
import type {
  AccountStore,
  ApiKeyStore,
  BrowserStore,
  InboxStore,
  JobStore,
  NotificationStore,
  ProjectAdminStore,
  PushStore,
  RequestLogStore,
  UsageStore,
  WebhookEndpointStore,
  WebhookMessageStore,
} from '../ports/store.js';
import { createVapidAdmin, type VapidAdminApi } from '../push/admin.js';
import { createRequestLogAdmin, type RequestLogAdminApi } from '../request-log/admin.js';
import type { WatchedHub } from '../shared/hub/watched-hub.js';
import { newId } from '../shared/ids.js';
import { apiKeyPrefix, generateApiKey, hashSecret } from '../shared/secrets.js';
import { utcDay } from '../shared/time.js';
import { createWebhookAdmin, type WebhookAdminApi } from '../webhooks/endpoint-admin.js';
import { createWebhookMessagesAdmin, type WebhookMessagesAdminApi } from '../webhooks/message-admin.js';
import { createRecipientViews, type RecipientViews } from './recipients.js';
import { type AdminViews, createAdminViews } from './views.js';

/**
 * The operations of docs/api.md#operations (those of a dashboard), as a typed API: the `tidings` CLI drives it,
 * and the web dashboard's pages reach projects, keys, usage and the log of sends only through it
 * (with the reads of {@link AdminViews}). Refusals throw {@link TidingsError} with the
 * contract's code (EMAIL_NOT_VERIFIED, PROJECT_LIMIT_REACHED, KEY_LIMIT_REACHED, NOT_FOUND…).
 */
export interface AdminApi
  extends AdminViews,
    RecipientViews,
    WebhookAdminApi,
    WebhookMessagesAdminApi,
    VapidAdminApi,
    RequestLogAdminApi {
  createAccount(input: { email: string; verified?: boolean }): Promise<AccountObject>;
  verifyAccount(accountId: string): Promise<AccountObject>;
  getAccount(accountId: string): Promise<AccountObject>;
  listAccounts(): Promise<AccountObject[]>;
  createProject(input: { accountId: string; name: string }): Promise<ProjectObject>;
  getProject(projectId: string): Promise<ProjectObject>;
  /** Renames a project (1 to 100 characters, trimmed). */
  renameProject(projectId: string, name: string): Promise<ProjectObject>;
  listProjects(accountId: string): Promise<ProjectObject[]>;
  /** The days a project's inbox items are kept (docs/inbox.md#retention). */
  getInboxRetention(projectId: string): Promise<number>;
  /** Sets the days a project's inbox items are kept: a whole number, 1 to 365. */
  setInboxRetention(projectId: string, days: number): Promise<number>;
  /**
   * Suspends a project: every request of it is refused with 403 and its open streams close. The
   * reason (1 to {@link MAX_SUSPENSION_REASON_LENGTH} characters, trimmed) and the actor are kept
   * with the project until it is resumed; suspending a suspended project keeps the first ones.
   */
  suspendProject(projectId: string, change?: SuspensionChange): Promise<ProjectObject>;
  /** Resumes a project; the reason, checked as for a suspension, is the caller's to record. */
  resumeProject(projectId: string, change?: SuspensionChange): Promise<ProjectObject>;
  /**
   * Deletes a project and all it holds at once (keys, recipients, browsers, notifications,
   * attempts, usage): its keys answer 401 from then on and its open streams close. It frees a
   * place under the limit of projects. Answers the project as it was.
   */
  deleteProject(projectId: string): Promise<ProjectObject>;
  /** Deletes an account and each of its projects as {@link AdminApi.deleteProject} does. */
  deleteAccount(accountId: string): Promise<AccountObject>;
  /** Creates a key; the answer is the only place its full value ever appears. */
  createKey(input: { projectId: string; mode: KeyMode; name?: string }): Promise<CreatedApiKeyObject>;
  listKeys(projectId: string): Promise<ApiKeyObject[]>;
  /** Revokes a key at once and for good. */
  revokeKey(keyId: string): Promise<ApiKeyObject>;
  /** Live usage per UTC day over the last `days` days, today included. @default days 30 */
  getUsage(projectId: string, options?: { days?: number }): Promise<UsageObject>;
}

/** The longest reason a suspension or a resumption may carry, in characters (after trimming). */
export const MAX_SUSPENSION_REASON_LENGTH = 500;

/** Why and by whom a project is suspended or resumed. */
export interface SuspensionChange {
  /** Why, as the operator writes it; shown to the project's owner while it is suspended. */
  reason?: string | null;
  /** Who: an operator's email, or the name an operator gives the CLI (1 to 254 characters). */
  actor?: string | null;
}

/** A suspension change's reason and actor, trimmed and checked; null where none was given. */
function checkSuspensionChange(change: SuspensionChange): { reason: string | null; actor: string | null } {
  const { reason = null, actor = null } = change;
  if (reason !== null && (typeof reason !== 'string' || reason.trim().length === 0)) {
    throw invalid('reason', 'must not be empty');
  }
  if (reason !== null && reason.trim().length > MAX_SUSPENSION_REASON_LENGTH) {
    throw invalid('reason', `must be at most ${MAX_SUSPENSION_REASON_LENGTH} characters`);
  }
  if (actor !== null && (typeof actor !== 'string' || actor.trim().length === 0 || actor.length > 254)) {
    throw invalid('actor', 'must be 1 to 254 characters');
  }
  return { reason: reason === null ? null : reason.trim(), actor: actor === null ? null : actor.trim() };
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DAY_MS = 86_400_000;

function notFound(kind: string, id: string): TidingsError {
  return new TidingsError('NOT_FOUND', `No ${kind} with id ${id}`);
}

function invalid(path: string, message: string): TidingsError {
  return new TidingsError('VALIDATION_FAILED', message, { errors: [{ path, message }] });
}

function checkProjectName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > 100) {
    throw invalid('name', 'must be 1 to 100 characters');
  }
}

/** The roles of the store the admin API reads and writes: none of the send path's or the queue's. */
/** The longest inbox retention a project may set, in days. */
export const MAX_INBOX_RETENTION_DAYS = 365;

export type AdminStore = AccountStore &
  ApiKeyStore &
  BrowserStore &
  InboxStore &
  Pick<JobStore, 'listJobs'> &
  NotificationStore &
  ProjectAdminStore &
  PushStore &
  RequestLogStore &
  UsageStore &
  WebhookEndpointStore &
  WebhookMessageStore;

/** Builds the admin API over the resolved options' store. */
export function createAdminApi(
  options: ResolvedOptionsWith<AdminStore>,
  hub: WatchedHub,
  limiter: Limiter,
  features: FeatureSettings = {},
): AdminApi {
  const { store, clock } = options;
  return {
    ...createAdminViews(options, hub, limiter, features),
    ...createRecipientViews(store),
    ...createWebhookAdmin(store, clock, {
      allowHttp: features.webhooks?.allowHttp === true,
      sealer: options.sealer,
    }),
    ...createWebhookMessagesAdmin(store, clock),
    ...createVapidAdmin(store, clock, options.sealer),
    ...createRequestLogAdmin(store),
    async createAccount({ email, verified = false }) {
      if (typeof email !== 'string' || email.length > 254 || !EMAIL_PATTERN.test(email)) {
        throw invalid('email', 'must be an email address');
      }
      const now = clock.now();
      return accountObject(await store.createAccount({ id: newId('acct', now), email, verified, now }));
    },
    async verifyAccount(accountId) {
      const account = await store.setAccountVerified({ id: accountId, verified: true });
      if (!account) throw notFound('account', accountId);
      return accountObject(account);
    },
    async getAccount(accountId) {
      const account = await store.getAccount(accountId);
      if (!account) throw notFound('account', accountId);
      return accountObject(account);
    },
    async listAccounts() {
      return (await store.listAccounts()).map(accountObject);
    },
    async createProject({ accountId, name }) {
      checkProjectName(name);
      const now = clock.now();
      const result = await store.createProject({
        id: newId('proj', now),
        accountId,
        name: name.trim(),
        now,
        maxProjects: options.maxProjectsPerAccount,
      });
      switch (result.kind) {
        case 'created':
          return projectObject(result.project);
        case 'account-not-found':
          throw notFound('account', accountId);
        case 'email-not-verified':
          throw new TidingsError('EMAIL_NOT_VERIFIED', 'Verify the account email before creating a project');
        case 'limit-reached':
          throw new TidingsError(
            'PROJECT_LIMIT_REACHED',
            `An account holds at most ${options.maxProjectsPerAccount} projects`,
          );
      }
    },
    async getProject(projectId) {
      const project = await store.getProject(projectId);
      if (!project) throw notFound('project', projectId);
      return projectObject(project);
    },
    async renameProject(projectId, name) {
      checkProjectName(name);
      const project = await store.renameProject({ id: projectId, name: name.trim() });
      if (!project) throw notFound('project', projectId);
      return projectObject(project);
    },
    async getInboxRetention(projectId) {
      if (!(await store.getProject(projectId))) throw notFound('project', projectId);
      return store.getInboxRetention({ projectId });
    },
    async setInboxRetention(projectId, days) {
      if (!Number.isInteger(days) || days < 1 || days > MAX_INBOX_RETENTION_DAYS) {
        throw new TidingsError('VALIDATION_FAILED', 'The inbox retention is a whole number of days, 1 to 365', {
          errors: [{ path: 'days', message: 'must be a whole number from 1 to 365' }],
        });
      }
      if (!(await store.getProject(projectId))) throw notFound('project', projectId);
      await store.setInboxRetention({ projectId, days });
      return days;
    },
    async listProjects(accountId) {
      if (!(await store.getAccount(accountId))) throw notFound('account', accountId);
      return (await store.listProjects(accountId)).map(projectObject);
    },
    async suspendProject(projectId, change = {}) {
      const { reason, actor } = checkSuspensionChange(change);
      const project = await store.setProjectSuspended({
        id: projectId,
        suspended: true,
        now: clock.now(),
        reason,
        actor,
      });
      if (!project) throw notFound('project', projectId);
      await hub.publish([{ type: 'close-project', projectId }]);
      return projectObject(project);
    },
    async resumeProject(projectId, change = {}) {
      checkSuspensionChange(change);
      const project = await store.setProjectSuspended({ id: projectId, suspended: false, now: clock.now() });
      if (!project) throw notFound('project', projectId);
      return projectObject(project);
    },
    async deleteProject(projectId) {
      const project = await store.getProject(projectId);
      if (!project || !(await store.deleteProject({ id: projectId }))) throw notFound('project', projectId);
      await hub.publish([{ type: 'close-project', projectId }]);
      return projectObject(project);
    },
    async deleteAccount(accountId) {
      const account = await store.getAccount(accountId);
      const deleted = account ? await store.deleteAccount({ id: accountId }) : null;
      if (!account || !deleted) throw notFound('account', accountId);
      if (deleted.projectIds.length > 0) {
        await hub.publish(deleted.projectIds.map((projectId) => ({ type: 'close-project' as const, projectId })));
      }
      return accountObject(account);
    },
    async createKey({ projectId, mode, name }) {
      if (mode !== 'live' && mode !== 'test') throw invalid('mode', 'must be live or test');
      if (name !== undefined && (typeof name !== 'string' || name.length > 100)) {
        throw invalid('name', 'must be at most 100 characters');
      }
      const now = clock.now();
      const fullKey = generateApiKey(mode);
      const result = await store.createApiKey({
        id: newId('key', now),
        projectId,
        hash: hashSecret(fullKey),
        prefix: apiKeyPrefix(fullKey),
        mode,
        name: name ?? null,
        now,
        maxActive: options.maxActiveKeysPerProject,
      });
      switch (result.kind) {
        case 'created':
          return apiKeyObject(result.key, fullKey);
        case 'project-not-found':
          throw notFound('project', projectId);
        case 'limit-reached':
          throw new TidingsError(
            'KEY_LIMIT_REACHED',
            `A project holds at most ${options.maxActiveKeysPerProject} active keys; revoke one first`,
          );
      }
    },
    async listKeys(projectId) {
      if (!(await store.getProject(projectId))) throw notFound('project', projectId);
      return (await store.listApiKeys(projectId)).map((key) => apiKeyObject(key));
    },
    async revokeKey(keyId) {
      const key = await store.revokeApiKey({ id: keyId, now: clock.now() });
      if (!key) throw notFound('api key', keyId);
      return apiKeyObject(key);
    },
    async getUsage(projectId, { days = 30 } = {}) {
      if (!Number.isInteger(days) || days < 1 || days > 366) throw invalid('days', 'must be 1 to 366');
      if (!(await store.getProject(projectId))) throw notFound('project', projectId);
      const now = clock.now();
      const from = utcDay(now - (days - 1) * DAY_MS);
      const to = utcDay(now);
      return usageObject(projectId, from, to, await store.getUsage({ projectId, fromDay: from, toDay: to }));
    },
  };
}
