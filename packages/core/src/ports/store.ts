import type {
  AccountRecord,
  ApiKeyLookup,
  ApiKeyRecord,
  AttemptPath,
  AttemptReason,
  AttemptRecord,
  BrowserLookup,
  BrowserRecord,
  ConnectTokenLookup,
  Delivery,
  DisconnectReason,
  EndedAttempt,
  KeyMode,
  NotificationRecord,
  NotificationWithAttempts,
  ProjectRecord,
  PushSubscriptionRecord,
  Receipt,
  UsageBreakdownDay,
  UsageDay,
  VapidKeyRecord,
} from '../types.js';
import type { ClaimedJob, JobRecord, JobStatus, JobsOf, NewJob } from './jobs.js';

export type * from './jobs.js';

/** Outcome of {@link Store.createProject}: the limits are checked in the same transaction. */
export type CreateProjectResult =
  | { kind: 'created'; project: ProjectRecord }
  | { kind: 'account-not-found' }
  | { kind: 'email-not-verified' }
  | { kind: 'limit-reached' };

/** One page of a project's log of sends, newest first: {@link Store.listNotifications}. */
export interface ListNotificationsInput {
  projectId: string;
  /** Only notifications whose id sorts before this one (the previous page's last id). */
  beforeId: string | null;
  limit: number;
  recipient: string | null;
  mode: KeyMode | null;
}

/** Input of {@link Store.searchProjects}. */
export interface SearchProjectsInput {
  /**
   * Only projects whose name or id, or whose account's email, contains this text, ignoring the
   * case of ASCII letters. Every character matches itself: `%`, `_` and `\` are no wildcards.
   * Null: every project.
   */
  query: string | null;
  offset: number;
  limit: number;
}

/** Outcome of {@link Store.searchProjects}: a page, oldest first, and the number of matches. */
export interface SearchProjectsResult {
  projects: { project: ProjectRecord; accountEmail: string }[];
  total: number;
}

/** Outcome of {@link Store.createApiKey}. */
export type CreateApiKeyResult =
  | { kind: 'created'; key: ApiKeyRecord }
  | { kind: 'project-not-found' }
  | { kind: 'limit-reached' };

/** Whether a webhook endpoint is sent events. */
export type WebhookEndpointStatus = 'enabled' | 'disabled';

/**
 * A project's webhook endpoint. `secret` signs what is sent to it (kept as is, not hashed, since
 * signing needs it); after a roll `previousSecret` still signs until `previousSecretExpiresAt`.
 */
export interface WebhookEndpointRecord {
  id: string;
  projectId: string;
  url: string;
  description: string | null;
  events: string[];
  status: WebhookEndpointStatus;
  disabledReason: string | null;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
  /**
   * Since when every request to the endpoint has failed (the first failure after its last
   * success), or null: an endpoint failing for 3 days is disabled.
   */
  failingSince: number | null;
}

/** Outcome of {@link Store.createWebhookEndpoint}. */
export type CreateWebhookEndpointResult =
  | { kind: 'created'; endpoint: WebhookEndpointRecord }
  | { kind: 'project-not-found' }
  | { kind: 'limit-reached' };

/** Where a webhook message is: waiting for its next request, answered 2xx, or given up. */
export type WebhookMessageStatus = 'pending' | 'delivered' | 'failed';

/** How one request of a webhook message ended. */
export type WebhookAttemptOutcome = 'succeeded' | 'failed' | 'timeout' | 'network' | 'refused';

/**
 * One event for one endpoint (docs/webhooks.md): its id is the `webhook-id` of every request
 * that carries it, retries, resends and replays included.
 */
export interface WebhookMessageRecord {
  /** `msg_…`: sorts by creation time. */
  id: string;
  projectId: string;
  endpointId: string;
  eventType: string;
  /** The body sent: `{ type, timestamp, data }`. */
  payload: unknown;
  /** What orders the endpoint's messages: a notification's id, a browser's id, or the message's own. */
  orderKey: string;
  status: WebhookMessageStatus;
  /** Requests made so far. */
  attempts: number;
  createdAt: number;
  /** When the next request is due; null once delivered or failed. */
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  deliveredAt: number | null;
}

/** A message to record: pending, due at its creation. */
export type NewWebhookMessage = Pick<
  WebhookMessageRecord,
  'id' | 'projectId' | 'endpointId' | 'eventType' | 'payload' | 'orderKey' | 'createdAt'
>;

/** One request of a webhook message. */
export interface WebhookMessageAttemptRecord {
  messageId: string;
  attemptedAt: number;
  /** The answer's status, or null when none came (timeout, network error, refused address). */
  statusCode: number | null;
  latencyMs: number;
  outcome: WebhookAttemptOutcome;
  /** The start of the answer's body, at most 1 KiB. */
  responseExcerpt: string | null;
  error: string | null;
}

/** A message with its requests, oldest first. */
export interface WebhookMessageWithAttempts {
  message: WebhookMessageRecord;
  attempts: WebhookMessageAttemptRecord[];
}

/** Input of {@link Store.listWebhookMessages}. */
export interface ListWebhookMessagesInput {
  endpointId: string;
  status: WebhookMessageStatus | null;
  /** Only messages created at or after this time. */
  since: number | null;
  /** Only messages whose id sorts before this one (the previous page's last id). */
  before: string | null;
  limit: number;
}

/** Input of {@link Store.recordWebhookAttempt}. */
export interface RecordWebhookAttemptInput {
  attempt: WebhookMessageAttemptRecord;
  /** The message's status after this request. */
  status: WebhookMessageStatus;
  /** When the next request is due, for a message still pending. */
  nextAttemptAt: number | null;
}

/** Outcome of {@link Store.recordWebhookAttempt}: the message and its endpoint after the request. */
export interface RecordedWebhookAttempt {
  message: WebhookMessageRecord;
  endpoint: WebhookEndpointRecord | null;
}

/** Outcome of {@link Store.findIdempotentResponse}. */
export type IdempotencyLookup =
  /** No unexpired result is stored under the key: the request executes. */
  | { kind: 'none' }
  /** A completed request with the same fingerprint: answer with its stored response. */
  | { kind: 'replay'; status: number; body: string }
  /** The key was used with another fingerprint (body or mode). */
  | { kind: 'mismatch' };

/** The idempotency key a send carries, recorded with its result in the send's transaction. */
export interface IdempotencyInput {
  key: string;
  /** The canonical body and mode, hashed: another fingerprint under the same key is a mismatch. */
  fingerprint: string;
  /** When the stored result stops answering for the key. */
  expiresAt: number;
}

/** The stored response of a request, kept for idempotent replays. */
export interface StoredResponse {
  status: number;
  body: string;
}

/** Input of {@link Store.createNotification}. */
export interface CreateNotificationInput {
  notification: NotificationRecord;
  /** Makes the id of each attempt; called once per connected browser. */
  newAttemptId: () => string;
  /**
   * The request's idempotency key. The store checks it and records the result in the send's own
   * transaction, so a request that dies on the way leaves nothing behind.
   */
  idempotency: IdempotencyInput | null;
  /** Renders the response stored for replays, from what was recorded. */
  render: (created: NotificationWithAttempts) => StoredResponse;
  /**
   * Jobs to enqueue with the send, computed from what it recorded, in the send's own
   * transaction (docs/jobs.md): they exist exactly when the notification does. Not called for a
   * replay, a mismatch or a refused send.
   */
  jobs?: JobsOf<NotificationWithAttempts>;
}

/** Outcome of {@link Store.createNotification}. */
export type CreateNotificationResult =
  | { kind: 'created'; created: NotificationWithAttempts; response: StoredResponse }
  | { kind: 'no-connected-browser' }
  /** An unexpired result under the idempotency key, same fingerprint: nothing was written. */
  | { kind: 'replay'; response: StoredResponse }
  /** An unexpired result under the idempotency key, another fingerprint: nothing was written. */
  | { kind: 'mismatch' };

/**
 * The record of an attempt a store has just written for `notification`: accepted, with nothing
 * else happened yet. Test mode records its attempts final at once: nothing will ever be sent for
 * them.
 */
export function acceptedAttempt(
  notification: NotificationRecord,
  attemptId: string,
  browserId: string,
  seq: number,
): AttemptRecord {
  return {
    id: attemptId,
    notificationId: notification.id,
    browserId,
    seq,
    status: 'accepted',
    final: notification.mode === 'test',
    acceptedAt: notification.createdAt,
    sentAt: null,
    sentVia: null,
    pushAcceptedAt: null,
    deliveredAt: null,
    failedAt: null,
    expiredAt: null,
    reason: null,
    displayedAt: null,
    clickedAt: null,
    dismissedAt: null,
  };
}

/** Outcome of {@link Store.listPendingDeliveries}. */
export interface PendingDeliveries {
  deliveries: Delivery[];
  disconnectedBrowserIds: string[];
}

/** Outcome of {@link Store.applyReceipts}. */
export interface AppliedReceipts {
  /** How many receipts named an attempt of this browser (repeats included). */
  named: number;
  /** The attempts that this call moved to `delivered`: none already final, none twice. */
  deliveredAttemptIds: string[];
}

/** A browser that {@link Store.reapStaleBrowsers} disconnected as stale. */
export interface ReapedBrowser {
  browserId: string;
  /** Its attempts that were not final and became `failed` (reason `browser_stale`). */
  failedAttemptIds: string[];
}

/** Outcome of {@link Store.disconnectBrowser}. */
export type DisconnectBrowserResult =
  | { kind: 'disconnected'; failedAttemptIds: string[] }
  | { kind: 'already-disconnected' }
  | { kind: 'not-found' };

/** Outcome of {@link Store.putPushSubscription}. */
export type PutPushSubscriptionResult =
  | { kind: 'saved'; subscription: PushSubscriptionRecord }
  /** The browser was disconnected (by request, as stale, or after its subscription was gone). */
  | { kind: 'browser-disconnected' }
  | { kind: 'not-found' };

/**
 * Where Tidings keeps its state. Every method is one atomic, domain-shaped operation (never
 * get-then-set across calls), so that a network store can implement the same port. Times are
 * epoch milliseconds passed in by the caller: the store never reads a clock of its own.
 *
 * Records are values: neither the store nor its caller changes a record once it is handed over
 * or returned. A store may return the very same notification object again while that
 * notification has not changed (the core renders such a record once), and must return another
 * object once it has.
 *
 * What only the web dashboard keeps (passwords, sessions, one-time codes, the audit log) is not
 * here: it is the dashboard's own port, `DashboardStore` in `@tidings/dashboard`.
 */
export interface Store {
  createAccount(input: { id: string; email: string; verified: boolean; now: number }): Promise<AccountRecord>;
  getAccount(id: string): Promise<AccountRecord | null>;
  listAccounts(): Promise<AccountRecord[]>;
  setAccountVerified(input: { id: string; verified: boolean }): Promise<AccountRecord | null>;

  /** Creates a project if the account exists, is verified and has fewer than `maxProjects`. */
  createProject(input: {
    id: string;
    accountId: string;
    name: string;
    now: number;
    maxProjects: number;
  }): Promise<CreateProjectResult>;
  getProject(id: string): Promise<ProjectRecord | null>;
  listProjects(accountId: string): Promise<ProjectRecord[]>;
  /**
   * Suspends or resumes a project; null when unknown. Suspending records `reason` and `actor`
   * (default null); suspending a suspended project keeps its first time, reason and actor, as
   * revoking a key twice keeps the first time. Resuming clears all three.
   */
  setProjectSuspended(input: {
    id: string;
    suspended: boolean;
    now: number;
    reason?: string | null;
    actor?: string | null;
  }): Promise<ProjectRecord | null>;
  /** Renames a project; null when unknown. */
  renameProject(input: { id: string; name: string }): Promise<ProjectRecord | null>;
  /** Every project of every account, oldest first: the operators' view. */
  listAllProjects(): Promise<ProjectRecord[]>;
  /** A page of every account's projects matching a text, oldest first, and how many match (one read). */
  searchProjects(input: SearchProjectsInput): Promise<SearchProjectsResult>;
  /**
   * Deletes a project and everything it holds, in one transaction: its keys (a request with one
   * answers 401 from the commit on, in every process), recipients, connect tokens, browsers,
   * notifications, attempts, idempotency records and usage. False when unknown.
   */
  deleteProject(input: { id: string }): Promise<boolean>;
  /**
   * Deletes an account and each of its projects as {@link Store.deleteProject} does, in one
   * transaction; the ids of the deleted projects, or null when the account is unknown. What
   * other ports keep of the account (the dashboard's sessions) is theirs to delete first.
   */
  deleteAccount(input: { id: string }): Promise<{ projectIds: string[] } | null>;

  /** Creates a key if the project exists and has fewer than `maxActive` keys not revoked. */
  createApiKey(input: {
    id: string;
    projectId: string;
    hash: string;
    prefix: string;
    mode: KeyMode;
    name: string | null;
    now: number;
    maxActive: number;
  }): Promise<CreateApiKeyResult>;
  getApiKey(id: string): Promise<ApiKeyRecord | null>;
  listApiKeys(projectId: string): Promise<ApiKeyRecord[]>;
  /** Revokes a key for good; revoking twice keeps the first time. Null when unknown. */
  revokeApiKey(input: { id: string; now: number }): Promise<ApiKeyRecord | null>;
  /** Finds a key (revoked ones included) by the SHA-256 hex of its full value. */
  findApiKeyByHash(hash: string): Promise<ApiKeyLookup | null>;
  /** Sets last-used to `now` unless it was set less than `minIntervalMs` ago. */
  touchApiKey(input: { id: string; now: number; minIntervalMs: number }): Promise<void>;
  /**
   * Creates a webhook endpoint if the project exists and has fewer than `maxEndpoints`, counted
   * in the same transaction as the insert.
   */
  createWebhookEndpoint(input: {
    id: string;
    projectId: string;
    url: string;
    description: string | null;
    events: string[];
    secret: string;
    now: number;
    maxEndpoints: number;
  }): Promise<CreateWebhookEndpointResult>;
  getWebhookEndpoint(id: string): Promise<WebhookEndpointRecord | null>;
  /** A project's endpoints, oldest first. */
  listWebhookEndpoints(projectId: string): Promise<WebhookEndpointRecord[]>;
  /** Changes the fields given (the others stay). Null when unknown. */
  updateWebhookEndpoint(input: {
    id: string;
    url?: string;
    description?: string | null;
    events?: string[];
    now: number;
  }): Promise<WebhookEndpointRecord | null>;
  /**
   * Enables or disables an endpoint; the reason is kept only while disabled, and enabling clears
   * `failingSince`. Null when unknown.
   */
  setWebhookEndpointStatus(input: {
    id: string;
    status: WebhookEndpointStatus;
    reason: string | null;
    now: number;
  }): Promise<WebhookEndpointRecord | null>;
  /** False when unknown. */
  deleteWebhookEndpoint(input: { id: string }): Promise<boolean>;
  /**
   * Replaces the secret; the one replaced stays as `previousSecret` until `previousExpiresAt`.
   * Null when unknown.
   */
  rollWebhookSecret(input: {
    id: string;
    secret: string;
    previousExpiresAt: number;
    now: number;
  }): Promise<WebhookEndpointRecord | null>;
  // Webhook messages (docs/webhooks.md). The writes above that change an attempt or a browser
  // record the events of the change for the enabled endpoints of its project that want them, in
  // their own transaction: one message and one `webhook` job per endpoint and event
  // (`webhookMessagesOf` and `webhookJobOf` of the core make them).

  /** Records messages (the `webhook.test` event) with their jobs, in one transaction. */
  enqueueWebhookMessages(input: { messages: NewWebhookMessage[]; now: number }): Promise<WebhookMessageRecord[]>;
  getWebhookMessage(id: string): Promise<WebhookMessageWithAttempts | null>;
  /** A page of an endpoint's messages, newest first. */
  listWebhookMessages(input: ListWebhookMessagesInput): Promise<WebhookMessageRecord[]>;
  /**
   * In one transaction: records a request of a message, the message's new status, and the
   * endpoint's `failingSince` (set at the first failure, cleared by a success). Null when the
   * message is unknown (purged, or deleted with its endpoint).
   */
  recordWebhookAttempt(input: RecordWebhookAttemptInput): Promise<RecordedWebhookAttempt | null>;
  /**
   * Makes messages pending again, due at `now`, each with a new `webhook` job, in the order
   * they were created: the given ids, or every message of `endpointId` created at or after
   * `since` that is not pending. Returns the messages made pending.
   */
  resendWebhookMessages(
    input: { ids: string[]; now: number } | { endpointId: string; since: number; now: number },
  ): Promise<WebhookMessageRecord[]>;
  /**
   * Disables an endpoint with `reason` if it is enabled and has been failing since at most
   * `failingSince`; the endpoint when this call disabled it, else null.
   */
  disableFailingWebhookEndpoint(input: {
    id: string;
    failingSince: number;
    reason: string;
    now: number;
  }): Promise<WebhookEndpointRecord | null>;
  /** Usage per UTC day, oldest first, for days in [fromDay, toDay] (`YYYY-MM-DD`). */
  getUsage(input: { projectId: string; fromDay: string; toDay: string }): Promise<UsageDay[]>;
  /**
   * A project's notifications created in [from, to) (epoch ms), counted per UTC day of creation
   * and mode, with their attempts, those sent and those delivered; days and modes without a
   * notification are left out. Ordered by day, then mode (live first).
   */
  getUsageBreakdown(input: { projectId: string; from: number; to: number }): Promise<UsageBreakdownDay[]>;

  /**
   * Reads the result stored under an idempotency key of a project, without writing: the same
   * fingerprint replays, another is a mismatch, nothing (or a record past its expiry) is none.
   * A fast path only: {@link Store.createNotification} checks again in its transaction.
   */
  findIdempotentResponse(input: {
    projectId: string;
    key: string;
    fingerprint: string;
    now: number;
  }): Promise<IdempotencyLookup>;

  /**
   * In one transaction: checks the idempotency key (an unexpired result replays or mismatches,
   * and nothing is written), finds the connected browsers of the recipient, records the
   * notification and one attempt per browser (final at once in test mode), records the result
   * under the idempotency key, and counts live usage. Sends with one key serialize in the store
   * (from any process): exactly one creates, the others see its result. A refused send (no
   * connected browser) records nothing, so the key stays free.
   */
  createNotification(input: CreateNotificationInput): Promise<CreateNotificationResult>;
  getNotification(input: { projectId: string; id: string }): Promise<NotificationWithAttempts | null>;
  /** A page of a project's notifications with their attempts, newest first (ids sort by time). */
  listNotifications(input: ListNotificationsInput): Promise<NotificationWithAttempts[]>;

  /** Stores a connect token by hash; the recipient exists from then on. */
  createConnectToken(input: {
    hash: string;
    projectId: string;
    recipient: string;
    now: number;
    expiresAt: number;
  }): Promise<void>;
  findConnectToken(hash: string): Promise<ConnectTokenLookup | null>;

  /** Registers a new connected browser of a recipient. */
  registerBrowser(input: {
    id: string;
    projectId: string;
    recipient: string;
    secretHash: string;
    now: number;
    /** Jobs computed from the new browser, enqueued in the same transaction. */
    jobs?: JobsOf<BrowserRecord>;
  }): Promise<BrowserRecord>;
  findBrowser(id: string): Promise<BrowserLookup | null>;
  /** The browser's attempts that are not final and not past their expiry, in stream order. */
  listDeliveries(input: { browserId: string; now: number }): Promise<Delivery[]>;
  /**
   * What the open streams of an instance should hold, for many browsers in one read (an
   * instance catches its streams up every few seconds, and after its hub may have lost
   * messages). `deliveries`: the attempts of the given browsers that are not final and not past
   * their expiry, ordered by browser and, within a browser, by seq, as {@link listDeliveries}
   * lists them. `disconnectedBrowserIds`: the given browsers that are not connected (disconnected,
   * reaped as stale, or unknown), whose streams must close. Ids may repeat; each is answered once.
   * `afterSeqs` (optional, one per id): list only the attempts of `browserIds[i]` whose seq is
   * greater than `afterSeqs[i]` (the smallest, for an id given twice), which its streams may
   * still lack; 0 lists them all.
   */
  listPendingDeliveries(input: {
    browserIds: string[];
    now: number;
    afterSeqs?: readonly number[];
  }): Promise<PendingDeliveries>;
  /** Moves the given attempts from `accepted` to `sent` by `via`; others are left as they are. */
  markAttemptsSent(input: { attemptIds: string[]; now: number; via: AttemptPath }): Promise<void>;
  /**
   * Applies receipts of one browser. Receipts for attempts of other browsers are ignored. A
   * `delivered` receipt also sets `sentAt` when the record of sending has not landed yet
   * (sending is recorded in batches, and a fast browser can answer first).
   * Returns how many receipts named an attempt of this browser, and which attempts became
   * `delivered` by this call (what the metrics count as attempts ended).
   */
  applyReceipts(input: {
    browserId: string;
    receipts: Receipt[];
    now: number;
    /** Jobs computed from what the receipts changed, enqueued in the same transaction. */
    jobs?: JobsOf<AppliedReceipts>;
  }): Promise<AppliedReceipts>;
  /** Disconnects a browser: its attempts that are not final become `failed` with the reason. */
  disconnectBrowser(input: {
    browserId: string;
    reason: DisconnectReason;
    now: number;
    /** Jobs computed from the outcome, enqueued in the same transaction (called for every outcome). */
    jobs?: JobsOf<DisconnectBrowserResult>;
  }): Promise<DisconnectBrowserResult>;
  /** Records that these browsers were seen (an open stream or a poll) at `now`. */
  touchBrowsers(input: { browserIds: string[]; now: number }): Promise<void>;
  /**
   * Records that the instance `instanceId` holds open streams of these connected browsers, and
   * that the instance itself was seen at `now`. A browser held by an instance counts as seen
   * whenever its holder was last seen, so an instance keeps every browser it holds fresh with
   * one write of its own (calling this again, with its browsers or none). Only a browser held by
   * no instance or by another one is written: it then becomes this instance's, seen at `now`.
   */
  holdBrowsers(input: { instanceId: string; browserIds: string[]; now: number }): Promise<void>;
  /**
   * The instance no longer holds open streams of these browsers: each is seen at `now`, and one
   * that this instance held is held by none (another instance that still has a stream of it
   * takes it back with its next {@link holdBrowsers}).
   */
  releaseBrowsers(input: { instanceId: string; browserIds: string[]; now: number }): Promise<void>;
  /**
   * Disconnects (reason `browser_stale`) connected browsers last seen before `seenBefore`, and
   * returns each with the attempts that failed with it. A held browser's last sight is its
   * holder's when that is later: it is stale only once its instance was not seen since
   * `seenBefore` either (an instance that stopped without releasing its browsers), and its
   * holder is then forgotten. A browser with a push subscription is kept while it was seen since
   * `pushSeenBefore` (default `seenBefore`): Web Push reaches it without a stream. A
   * disconnection deletes the browser's push subscription.
   */
  reapStaleBrowsers(input: { seenBefore: number; now: number; pushSeenBefore?: number }): Promise<ReapedBrowser[]>;

  // Web Push (docs/web-push.md).

  /** The deployment's VAPID key pair, or null before one was stored. */
  getVapidKeys(): Promise<VapidKeyRecord | null>;
  /**
   * Stores `keys` unless a pair is stored already, and returns the stored pair: instances starting
   * together all end with the one pair that was stored first.
   */
  ensureVapidKeys(input: { publicKey: string; privateKey: string; now: number }): Promise<VapidKeyRecord>;
  /** Replaces the stored pair (or stores the first); returns the new one. */
  rotateVapidKeys(input: { publicKey: string; privateKey: string; now: number }): Promise<VapidKeyRecord>;
  /**
   * Saves a connected browser's push subscription, replacing the one it had: `createdAt` stays
   * while the endpoint is the same. Also records the browser as seen at `now`.
   */
  putPushSubscription(input: {
    browserId: string;
    endpoint: string;
    p256dh: string;
    auth: string;
    expiresAt: number | null;
    now: number;
  }): Promise<PutPushSubscriptionResult>;
  getPushSubscription(browserId: string): Promise<PushSubscriptionRecord | null>;
  /** Deletes a browser's push subscription; false when it had none. */
  deletePushSubscription(input: { browserId: string }): Promise<boolean>;
  /** The connected browsers of a recipient that have a push subscription. */
  listPushSubscribedBrowsers(input: { projectId: string; recipient: string }): Promise<string[]>;
  /**
   * Records that the push service accepted a message of an attempt: `pushAcceptedAt` (the first
   * time), `sentVia` `push`, `sentAt` if not yet, and `sent` if it was `accepted`; the status of
   * a final attempt stays. Idempotent. False when the attempt is unknown.
   */
  markAttemptPushed(input: { attemptId: string; now: number }): Promise<boolean>;
  /** Moves an attempt that is not final to `failed` with the reason; false when it was final or unknown. */
  failAttempt(input: { attemptId: string; reason: AttemptReason; now: number }): Promise<boolean>;
  /** Moves attempts that are not final and whose notification expired to `expired`. */
  expireAttempts(input: { now: number }): Promise<EndedAttempt[]>;
  /**
   * Deletes idempotency records and connect tokens past their expiry, finished jobs (done or
   * failed) past their `keepUntil`, and webhook messages (with their requests) created more than
   * `WEBHOOK_MESSAGE_RETENTION_MS` (30 days) before `now`.
   */
  purgeExpired(input: { now: number }): Promise<void>;

  // The job queue (docs/jobs.md). Jobs are also enqueued by the `jobs` of the writes above, in
  // their transaction.

  /** Enqueues jobs, pending from their `runAt` (default `now`), in the order given. */
  enqueueJobs(input: { jobs: NewJob[]; now: number }): Promise<JobRecord[]>;
  /**
   * Claims up to `limit` jobs of the given kinds, oldest first: pending jobs due at `now`, and
   * running jobs whose lease ended before `now`. Of each key only the oldest unfinished job can
   * be claimed, so that a key's jobs run one at a time, in order. Each claimed job becomes
   * running, leased to `owner` until `now + leaseMs`, its attempts raised by one. Atomic across
   * processes and instances: no two callers ever hold one job at once.
   */
  claimJobs(input: {
    kinds: string[];
    limit: number;
    now: number;
    leaseMs: number;
    owner: string;
  }): Promise<ClaimedJob[]>;
  /** Marks a running job of `owner` done, kept until `keepUntil`; false when the lease was lost. */
  completeJob(input: { id: string; owner: string; now: number; keepUntil: number }): Promise<boolean>;
  /** Puts a running job of `owner` back to pending from `runAt`, with the error; false when the lease was lost. */
  retryJob(input: { id: string; owner: string; runAt: number; error: string }): Promise<boolean>;
  /** Marks a running job of `owner` failed for good, kept until `keepUntil`; false when the lease was lost. */
  failJob(input: { id: string; owner: string; error: string; now: number; keepUntil: number }): Promise<boolean>;
  /** A project's jobs, newest first; `before` is the previous page's last id. */
  listJobs(input: {
    projectId: string;
    kind?: string;
    key?: string;
    status?: JobStatus;
    limit: number;
    before?: string;
  }): Promise<JobRecord[]>;
  /**
   * Calls `listener` after jobs enqueued through this store instance are durable (on disk, or
   * committed), with their kinds, so that a runner in this process wakes at once instead of at
   * its next poll. Returns the unsubscribe function.
   */
  onJobsEnqueued(listener: (kinds: string[]) => void): () => void;

  close(): Promise<void>;
}
