import type { StoreMethod } from '../store.js';

/**
 * What a method of the store port does to the state: `read` writes nothing, `write` changes it,
 * `lifecycle` is about the store itself (a subscription, the end).
 */
export type StoreMethodKind = 'read' | 'write' | 'lifecycle';

/**
 * What the answer of a write promises: `durable`, the change survives a power cut once the call
 * resolved; `redoable`, bookkeeping that may be lost with a power cut and is redone (last used
 * and seen times, purging, the record of sending); `none` for what is not a write.
 */
export type StoreDurability = 'durable' | 'redoable' | 'none';

/**
 * How a method may enqueue jobs, after which the job runner must be woken (`onJobsEnqueued`):
 * `listed`, the jobs the input lists (and the method returns); `computed`, those its input's
 * `jobs` computes from the outcome, in its transaction; `webhook`, a `webhook` job with each
 * message it records; `webhook-returned`, a `webhook` job with each message it makes pending
 * again and returns; `none`.
 */
export type StoreJobDuty = 'listed' | 'computed' | 'webhook' | 'webhook-returned' | 'none';

/** The duties of one method of the store port, which every store and wrapper of it honours. */
export interface StoreMethodDuties {
  kind: StoreMethodKind;
  durability: StoreDurability;
  jobs: StoreJobDuty;
  /**
   * Records the events of what it changed (an attempt, a browser) as webhook messages, for the
   * enabled endpoints of the project that want them, in its own transaction (docs/webhooks.md).
   */
  recordsWebhookEvents: boolean;
  /** Counts the project's usage (`getUsage`) in its own transaction. */
  countsUsage: boolean;
}

const READ: StoreMethodDuties = {
  kind: 'read',
  durability: 'none',
  jobs: 'none',
  recordsWebhookEvents: false,
  countsUsage: false,
};
const LIFECYCLE: StoreMethodDuties = { ...READ, kind: 'lifecycle' };
const DURABLE: StoreMethodDuties = { ...READ, kind: 'write', durability: 'durable' };
const REDOABLE: StoreMethodDuties = { ...READ, kind: 'write', durability: 'redoable' };
/** A durable write that records the webhook events of what it changed, each with its job. */
const DURABLE_WITH_EVENTS: StoreMethodDuties = { ...DURABLE, jobs: 'webhook', recordsWebhookEvents: true };

/**
 * The duties of every method of the store port, in one place: a new method fails the type check
 * until it is declared here. The store's assembly (`assembleStore`: the flush, the job wake-ups)
 * derives what it composes around each write from this table, so no write skips a duty by being
 * forgotten.
 */
export const STORE_DUTIES = {
  createAccount: DURABLE,
  getAccount: READ,
  listAccounts: READ,
  setAccountVerified: DURABLE,
  createProject: DURABLE,
  getProject: READ,
  listProjects: READ,
  setProjectSuspended: DURABLE,
  renameProject: DURABLE,
  listAllProjects: READ,
  searchProjects: READ,
  deleteProject: DURABLE,
  deleteAccount: DURABLE,
  createApiKey: DURABLE,
  getApiKey: READ,
  listApiKeys: READ,
  revokeApiKey: DURABLE,
  findApiKeyByHash: READ,
  touchApiKey: REDOABLE,
  createWebhookEndpoint: DURABLE,
  getWebhookEndpoint: READ,
  listWebhookEndpoints: READ,
  updateWebhookEndpoint: DURABLE,
  setWebhookEndpointStatus: DURABLE,
  deleteWebhookEndpoint: DURABLE,
  rollWebhookSecret: DURABLE,
  enqueueWebhookMessages: { ...DURABLE, jobs: 'webhook' },
  getWebhookMessage: READ,
  listWebhookMessages: READ,
  recordWebhookAttempt: DURABLE,
  resendWebhookMessages: { ...DURABLE, jobs: 'webhook-returned' },
  disableFailingWebhookEndpoint: DURABLE,
  getUsage: READ,
  getUsageBreakdown: READ,
  findIdempotentResponse: READ,
  createNotification: { ...DURABLE, jobs: 'computed', countsUsage: true },
  getNotification: READ,
  listNotifications: READ,
  createConnectToken: DURABLE,
  findConnectToken: READ,
  registerBrowser: DURABLE_WITH_EVENTS,
  findBrowser: READ,
  getBrowserView: READ,
  listRecipientBrowsers: READ,
  listRecipients: READ,
  listDeliveries: READ,
  listPendingDeliveries: READ,
  markAttemptsSent: REDOABLE,
  applyReceipts: DURABLE_WITH_EVENTS,
  disconnectBrowser: DURABLE_WITH_EVENTS,
  touchBrowsers: REDOABLE,
  // The holder writes its browsers again at its next hold, within a quarter of the stale timeout.
  holdBrowsers: REDOABLE,
  releaseBrowsers: REDOABLE,
  reapStaleBrowsers: DURABLE_WITH_EVENTS,
  listInbox: READ,
  getInboxCounts: READ,
  getInboxItem: READ,
  markInbox: DURABLE_WITH_EVENTS,
  remindUnread: DURABLE_WITH_EVENTS,
  purgeInbox: REDOABLE,
  setInboxRetention: DURABLE,
  getInboxRetention: READ,
  // Diagnostic: an entry lost to a power cut is not redone, and no answer waits for it
  // (docs/api.md#request-log).
  appendRequestLog: REDOABLE,
  listRequestLog: READ,
  getRequestLogEntry: READ,
  purgeRequestLog: REDOABLE,
  getVapidKeys: READ,
  ensureVapidKeys: DURABLE,
  rotateVapidKeys: DURABLE,
  putPushSubscription: DURABLE,
  getPushSubscription: READ,
  deletePushSubscription: DURABLE,
  listPushSubscribedBrowsers: READ,
  // A record of pushing lost to a power cut leaves the attempt to be pushed again, as a lost
  // record of sending on a stream does.
  markAttemptPushed: { ...DURABLE_WITH_EVENTS, durability: 'redoable' },
  failAttempt: DURABLE_WITH_EVENTS,
  expireAttempts: DURABLE_WITH_EVENTS,
  purgeExpired: REDOABLE,
  enqueueJobs: { ...DURABLE, jobs: 'listed' },
  // Durable, though a lost claim is redone: making it durable also makes durable every job it
  // claims, enqueued by a commit before it, so no job runs (and tells anyone) before it is.
  claimJobs: DURABLE,
  completeJob: DURABLE,
  retryJob: DURABLE,
  failJob: DURABLE,
  listJobs: READ,
  onJobsEnqueued: LIFECYCLE,
  close: LIFECYCLE,
} as const satisfies Record<StoreMethod, StoreMethodDuties>;

/** The names of the store's methods whose duties match `test`, in the table's order. */
export function storeMethodsWhere(test: (duties: StoreMethodDuties) => boolean): StoreMethod[] {
  return (Object.keys(STORE_DUTIES) as StoreMethod[]).filter((name) => test(STORE_DUTIES[name]));
}
