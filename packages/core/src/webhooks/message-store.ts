import type { WebhookEndpointRecord } from './endpoint-store.js';

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

/** Input of {@link WebhookMessageStore.listWebhookMessages}. */
export interface ListWebhookMessagesInput {
  endpointId: string;
  status: WebhookMessageStatus | null;
  /** Only messages created at or after this time. */
  since: number | null;
  /** Only messages whose id sorts before this one (the previous page's last id). */
  before: string | null;
  /** Only messages of this event type. */
  eventType?: string | null;
  /** Only messages about this notification (its events are ordered by its id). */
  notificationId?: string | null;
  /** Only messages whose event names this recipient (`data.recipient`). */
  recipient?: string | null;
  limit: number;
}

/** Input of {@link WebhookMessageStore.recordWebhookAttempt}. */
export interface RecordWebhookAttemptInput {
  attempt: WebhookMessageAttemptRecord;
  /** The message's status after this request. */
  status: WebhookMessageStatus;
  /** When the next request is due, for a message still pending. */
  nextAttemptAt: number | null;
}

/** Outcome of {@link WebhookMessageStore.recordWebhookAttempt}: the message and its endpoint after the request. */
export interface RecordedWebhookAttempt {
  message: WebhookMessageRecord;
  endpoint: WebhookEndpointRecord | null;
}

/**
 * Webhook messages (docs/webhooks.md): recorded, sent, retried, resent. The writes of the other
 * roles that change an attempt or a browser record the events of the change for the enabled
 * endpoints of its project that want them, in their own transaction: one message and one
 * `webhook` job per endpoint and event (`webhookMessagesOf` and `webhookJobOf` of the core make
 * them).
 */
export interface WebhookMessageStore {
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
}
