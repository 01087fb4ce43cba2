import type { HubMessage } from '../hub.js';
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
  /**
   * What the core hands to the hub once the write resolved (never the store), for the open streams
   * of this process and the others: a send's attempts (`deliver`), an inbox change (`inbox`), a
   * browser's end (`close-browser`), a project's (`close-project`).
   */
  publishes: readonly HubMessage['type'][];
  /**
   * The job kinds the write may enqueue in its transaction, by the feature that adds them: its
   * `jobs` duty says how. A `computed` write enqueues what the instance's features add to it.
   */
  jobKinds: readonly string[];
}

const READ: StoreMethodDuties = {
  kind: 'read',
  durability: 'none',
  jobs: 'none',
  recordsWebhookEvents: false,
  countsUsage: false,
  publishes: [],
  jobKinds: [],
};
const LIFECYCLE: StoreMethodDuties = { ...READ, kind: 'lifecycle' };
const DURABLE: StoreMethodDuties = { ...READ, kind: 'write', durability: 'durable' };
const REDOABLE: StoreMethodDuties = { ...READ, kind: 'write', durability: 'redoable' };
/** A durable write that records the webhook events of what it changed, each with its job. */
const DURABLE_WITH_EVENTS: StoreMethodDuties = {
  ...DURABLE,
  jobs: 'webhook',
  recordsWebhookEvents: true,
  jobKinds: ['webhook'],
};
/** {@link DURABLE_WITH_EVENTS} after which the browser's open streams close everywhere. */
const ENDS_BROWSERS: StoreMethodDuties = { ...DURABLE_WITH_EVENTS, publishes: ['close-browser'] };
/** A durable write after which the project's open streams close everywhere. */
const ENDS_PROJECTS: StoreMethodDuties = { ...DURABLE, publishes: ['close-project'] };

/**
 * The duties of every method of the store port, in one place, and what follows each write: the
 * path after a send or a receipt reads here from the transaction to the hub. A send
 * (`createNotification`) writes its attempts, its inbox item, its idempotency record, its usage
 * and the jobs the instance's features add (Web Push's `push`, the inbox's `inbox-unread`) in one
 * transaction; once it resolves, its attempts go to the hub (`deliver`). Through an application's
 * transaction the same statements run on the application's connection, and the commit is what
 * tells: PostgreSQL's `pg_notify` in that transaction reaches every instance listening, SQLite's
 * `committed` check wakes the runners and hands the attempts on in the committing process.
 * Receipts (`applyReceipts`) record webhook events in their transaction; what they mark in the
 * inbox is the inbox's own write (`markInbox`, then `inbox` to the hub). A new method fails the type check
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
  // Suspending closes the project's streams; resuming closes nothing.
  setProjectSuspended: ENDS_PROJECTS,
  renameProject: DURABLE,
  listAllProjects: READ,
  searchProjects: READ,
  deleteProject: ENDS_PROJECTS,
  deleteAccount: ENDS_PROJECTS,
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
  enqueueWebhookMessages: { ...DURABLE, jobs: 'webhook', jobKinds: ['webhook'] },
  getWebhookMessage: READ,
  listWebhookMessages: READ,
  recordWebhookAttempt: DURABLE,
  resendWebhookMessages: { ...DURABLE, jobs: 'webhook-returned', jobKinds: ['webhook'] },
  disableFailingWebhookEndpoint: DURABLE,
  getUsage: READ,
  getUsageBreakdown: READ,
  findIdempotentResponse: READ,
  createNotification: {
    ...DURABLE,
    jobs: 'computed',
    countsUsage: true,
    publishes: ['deliver'],
    jobKinds: ['push', 'inbox-unread'],
  },
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
  disconnectBrowser: ENDS_BROWSERS,
  touchBrowsers: REDOABLE,
  // The holder writes its browsers again at its next hold, within a quarter of the stale timeout.
  holdBrowsers: REDOABLE,
  releaseBrowsers: REDOABLE,
  reapStaleBrowsers: ENDS_BROWSERS,
  listInbox: READ,
  getInboxCounts: READ,
  getInboxItem: READ,
  markInbox: { ...DURABLE_WITH_EVENTS, publishes: ['inbox'] },
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
  listStoredSecrets: READ,
  replaceStoredSecret: DURABLE,
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
