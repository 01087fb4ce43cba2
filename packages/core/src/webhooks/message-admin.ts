import { isoTime } from '../delivery/serialize.js';
import { TidingsError } from '../pipeline/errors.js';
import type { Clock } from '../ports/clock.js';
import type {
  WebhookAttemptOutcome,
  WebhookEndpointStore,
  WebhookMessageAttemptRecord,
  WebhookMessageRecord,
  WebhookMessageStatus,
  WebhookMessageStore,
} from '../ports/store.js';
import { WEBHOOK_EVENT_TYPES } from './endpoint-admin.js';
import { WEBHOOK_TEST_EVENT, webhookMessageOf } from './events.js';
import { sampleEventData } from './samples.js';

/** Messages per page of {@link WebhookMessagesAdminApi.listWebhookMessages}, by default and at most. */
export const DEFAULT_WEBHOOK_MESSAGES_PAGE = 50;
export const MAX_WEBHOOK_MESSAGES_PAGE = 100;

const STATUSES: readonly WebhookMessageStatus[] = ['pending', 'delivered', 'failed'];

/** A webhook message as the admin API answers it. */
export interface WebhookMessageObject {
  object: 'webhook_message';
  id: string;
  endpoint_id: string;
  project_id: string;
  event_type: string;
  /** The body sent: `{ type, timestamp, data }`. */
  payload: unknown;
  status: WebhookMessageStatus;
  /** Requests made so far. */
  attempts: number;
  created_at: string;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  delivered_at: string | null;
}

/** One request of a message. */
export interface WebhookMessageAttemptObject {
  attempted_at: string;
  status_code: number | null;
  latency_ms: number;
  outcome: WebhookAttemptOutcome;
  /** The start of the answer's body, at most 1 KiB. */
  response_excerpt: string | null;
  error: string | null;
}

/**
 * A message with its requests, oldest first: `attempts` is then the list (its length is the
 * count that {@link WebhookMessageObject} answers).
 */
export type WebhookMessageDetailObject = Omit<WebhookMessageObject, 'attempts'> & {
  attempts: WebhookMessageAttemptObject[];
  /**
   * For a pending message: the oldest pending message of the same endpoint and order (the same
   * notification or browser) created before it, which it waits for, since an endpoint gets the
   * messages of one notification one at a time, in order; null when it waits for nothing.
   */
  waiting_behind: string | null;
};

/** Pending messages read to find the one a message waits behind. */
const WAITING_BEHIND_SCAN = 100;

/** The message's object. */
export function webhookMessageObject(message: WebhookMessageRecord): WebhookMessageObject {
  return {
    object: 'webhook_message',
    id: message.id,
    endpoint_id: message.endpointId,
    project_id: message.projectId,
    event_type: message.eventType,
    payload: message.payload,
    status: message.status,
    attempts: message.attempts,
    created_at: isoTime(message.createdAt),
    next_attempt_at: isoTime(message.nextAttemptAt),
    last_attempt_at: isoTime(message.lastAttemptAt),
    delivered_at: isoTime(message.deliveredAt),
  };
}

/** The request's object. */
export function webhookMessageAttemptObject(attempt: WebhookMessageAttemptRecord): WebhookMessageAttemptObject {
  return {
    attempted_at: isoTime(attempt.attemptedAt),
    status_code: attempt.statusCode,
    latency_ms: attempt.latencyMs,
    outcome: attempt.outcome,
    response_excerpt: attempt.responseExcerpt,
    error: attempt.error,
  };
}

/** The admin API's webhook message operations (docs/webhooks.md). */
export interface WebhookMessagesAdminApi {
  /** An endpoint's messages, newest first; `before` is the previous page's last id. */
  listWebhookMessages(
    endpointId: string,
    options?: {
      status?: WebhookMessageStatus;
      since?: number;
      before?: string;
      limit?: number;
      /** Only messages of this event type. */
      eventType?: string;
      /** Only messages about this notification. */
      notificationId?: string;
      /** Only messages whose event names this recipient. */
      recipient?: string;
    },
  ): Promise<WebhookMessageObject[]>;
  /** A message with its requests, oldest first. */
  getWebhookMessage(messageId: string): Promise<WebhookMessageDetailObject>;
  /**
   * Sends a delivered or failed message again, as soon as possible, with the same id; a pending
   * one waiting for a retry is made due now (its job keeps its count of attempts and its place).
   */
  resendWebhookMessage(messageId: string): Promise<WebhookMessageObject>;
  /**
   * Sends again, in order, every message of the endpoint created since `since` (ms): delivered
   * and failed ones with a new job, pending ones (retrying) made due now.
   */
  replayWebhookMessages(endpointId: string, options: { since: number }): Promise<{ count: number }>;
  /**
   * Enqueues a `webhook.test` message for the endpoint, whatever the event types it wants; with
   * `type`, a sample event of that type instead (fresh ids, a sample recipient), to try a receiver.
   */
  sendTestWebhookEvent(endpointId: string, options?: { type?: string }): Promise<WebhookMessageObject>;
}

function invalid(path: string, message: string): TidingsError {
  return new TidingsError('VALIDATION_FAILED', message, { errors: [{ path, message }] });
}

function checkTime(path: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw invalid(path, 'must be a time in epoch milliseconds');
  }
  return Math.floor(value);
}

/** The admin API's webhook message operations over a store. */
export function createWebhookMessagesAdmin(
  store: WebhookEndpointStore & WebhookMessageStore,
  clock: Clock,
): WebhookMessagesAdminApi {
  async function endpointOf(id: string) {
    const endpoint = typeof id === 'string' ? await store.getWebhookEndpoint(id) : null;
    if (!endpoint) throw new TidingsError('NOT_FOUND', `No webhook endpoint with id ${id}`);
    return endpoint;
  }
  function messageNotFound(id: string): TidingsError {
    return new TidingsError('NOT_FOUND', `No webhook message with id ${id}`);
  }
  return {
    async listWebhookMessages(endpointId, options = {}) {
      const {
        status,
        since,
        before,
        limit = DEFAULT_WEBHOOK_MESSAGES_PAGE,
        eventType,
        notificationId,
        recipient,
      } = options;
      for (const [path, value] of [
        ['event_type', eventType],
        ['notification_id', notificationId],
        ['recipient', recipient],
      ] as const) {
        if (value !== undefined && (typeof value !== 'string' || value === '' || value.length > 255)) {
          throw invalid(path, 'must be a text of 1 to 255 characters');
        }
      }
      if (status !== undefined && !STATUSES.includes(status)) {
        throw invalid('status', `must be one of ${STATUSES.join(', ')}`);
      }
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_WEBHOOK_MESSAGES_PAGE) {
        throw invalid('limit', `must be 1 to ${MAX_WEBHOOK_MESSAGES_PAGE}`);
      }
      if (before !== undefined && typeof before !== 'string') throw invalid('before', 'must be a message id');
      await endpointOf(endpointId);
      const messages = await store.listWebhookMessages({
        endpointId,
        status: status ?? null,
        since: since === undefined ? null : checkTime('since', since),
        before: before ?? null,
        eventType: eventType ?? null,
        notificationId: notificationId ?? null,
        recipient: recipient ?? null,
        limit,
      });
      return messages.map(webhookMessageObject);
    },
    async getWebhookMessage(messageId) {
      const found = typeof messageId === 'string' ? await store.getWebhookMessage(messageId) : null;
      if (!found) throw messageNotFound(messageId);
      const { message } = found;
      let waitingBehind: string | null = null;
      if (message.status === 'pending') {
        const older = await store.listWebhookMessages({
          endpointId: message.endpointId,
          status: 'pending',
          since: null,
          before: message.id,
          limit: WAITING_BEHIND_SCAN,
        });
        waitingBehind = older.findLast((candidate) => candidate.orderKey === message.orderKey)?.id ?? null;
      }
      return {
        ...webhookMessageObject(message),
        attempts: found.attempts.map(webhookMessageAttemptObject),
        waiting_behind: waitingBehind,
      };
    },
    async resendWebhookMessage(messageId) {
      if (typeof messageId !== 'string') throw messageNotFound(messageId);
      const [message] = await store.resendWebhookMessages({ ids: [messageId], now: clock.now() });
      if (!message) throw messageNotFound(messageId);
      return webhookMessageObject(message);
    },
    async replayWebhookMessages(endpointId, options) {
      const since = checkTime('since', options?.since);
      await endpointOf(endpointId);
      const messages = await store.resendWebhookMessages({ endpointId, since, now: clock.now() });
      return { count: messages.length };
    },
    async sendTestWebhookEvent(endpointId, options = {}) {
      const type = options.type ?? WEBHOOK_TEST_EVENT;
      const known: readonly string[] = WEBHOOK_EVENT_TYPES;
      if (type !== WEBHOOK_TEST_EVENT && !known.includes(type)) {
        throw invalid('type', `must be ${WEBHOOK_TEST_EVENT} or one of ${WEBHOOK_EVENT_TYPES.join(', ')}`);
      }
      const endpoint = await endpointOf(endpointId);
      const now = clock.now();
      const message = webhookMessageOf(
        {
          type,
          timestamp: isoTime(now),
          data: type === WEBHOOK_TEST_EVENT ? { endpoint_id: endpoint.id } : sampleEventData(type, now),
          orderKey: 'test',
        },
        endpoint,
        now,
      );
      const [stored] = await store.enqueueWebhookMessages({ messages: [message], now });
      return webhookMessageObject(stored!);
    },
  };
}
