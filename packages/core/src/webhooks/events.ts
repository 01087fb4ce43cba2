// The events a write records for a project's webhook endpoints (docs/webhooks.md).

import { attemptObject, isoTime, notificationObject } from '../delivery/serialize.js';
import type { NewJob } from '../ports/jobs.js';
import type { DisconnectReason, NotificationWithAttempts } from '../ports/records.js';
import type { NewWebhookMessage, WebhookEndpointRecord, WebhookMessageRecord } from '../ports/store.js';
import { newId } from '../shared/ids.js';

/** The job kind that sends one webhook message. */
export const WEBHOOK_JOB_KIND = 'webhook';

/** How long a webhook message is kept after its creation, whatever its status: 30 days. */
export const WEBHOOK_MESSAGE_RETENTION_MS = 30 * 86_400_000;

/** The event sent only on request, to one endpoint, whatever the event types it wants. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** What a webhook job carries. */
export interface WebhookJobPayload {
  messageId: string;
}

/**
 * The job that sends a message. Its key orders an endpoint's messages of one notification (or
 * browser): they go out one at a time, in the order they were created.
 */
export function webhookJobOf(
  message: Pick<WebhookMessageRecord, 'id' | 'projectId' | 'endpointId' | 'orderKey'>,
  runAt?: number,
): NewJob {
  const payload: WebhookJobPayload = { messageId: message.id };
  return {
    kind: WEBHOOK_JOB_KIND,
    key: `webhook:${message.endpointId}:${message.orderKey}`,
    projectId: message.projectId,
    payload,
    ...(runAt === undefined ? {} : { runAt }),
  };
}

/** Why a browser was disconnected, as `browser.disconnected` names it. */
export type BrowserDisconnectedReason = 'disconnected' | 'stale';

/** The reason of `browser.disconnected` for the store's reason of a disconnection. */
export function browserDisconnectedReason(reason: DisconnectReason): BrowserDisconnectedReason {
  return reason === 'browser_stale' ? 'stale' : 'disconnected';
}

/** An attempt a write changed: its status, a receipt's time, or its push acceptance. */
export interface AttemptChange {
  kind: 'attempt';
  attemptId: string;
  notificationId: string;
  /** The attempt became final with this write. */
  ended: boolean;
}

/** A browser a write registered. */
export interface BrowserConnectedChange {
  kind: 'browser-connected';
  browserId: string;
  recipient: string;
  at: number;
}

/** A browser a write disconnected. */
export interface BrowserDisconnectedChange {
  kind: 'browser-disconnected';
  browserId: string;
  recipient: string;
  at: number;
  reason: DisconnectReason;
}

/** An inbox item a write made read. */
export interface InboxReadChange {
  kind: 'inbox-read';
  notificationId: string;
  recipient: string;
  at: number;
}

/** An inbox item still unread when its send's `notify_unread_after` ran out. */
export interface UnreadReminderChange {
  kind: 'unread-reminder';
  notificationId: string;
  recipient: string;
  createdAt: number;
  afterSeconds: number;
}

/** What one write changed that webhook events report. */
export type WebhookChange =
  | AttemptChange
  | BrowserConnectedChange
  | BrowserDisconnectedChange
  | InboxReadChange
  | UnreadReminderChange;

/** The event type of a change that is not an attempt's. */
const CHANGE_EVENT_TYPE = {
  'browser-connected': 'browser.connected',
  'browser-disconnected': 'browser.disconnected',
  'inbox-read': 'notification.read',
  'unread-reminder': 'notification.unread',
} as const;

/** Whether a change belongs to a notification (its project is the notification's), not to a browser. */
export function isNotificationChange(
  change: WebhookChange,
): change is AttemptChange | InboxReadChange | UnreadReminderChange {
  return change.kind === 'attempt' || change.kind === 'inbox-read' || change.kind === 'unread-reminder';
}

/** Whether an endpoint wants an event type. */
export function endpointWants(endpoint: Pick<WebhookEndpointRecord, 'events' | 'status'>, type: string): boolean {
  return endpoint.status === 'enabled' && (endpoint.events.includes('*') || endpoint.events.includes(type));
}

/** An event as sent: the body of every message that carries it. */
export interface WebhookEvent {
  type: string;
  timestamp: string;
  data: unknown;
  /** What orders it among an endpoint's messages (not sent). */
  orderKey: string;
}

/**
 * The events of one project's changes, in the order of the changes: `notification.attempt.updated`
 * for each attempt changed, then `notification.completed` once for a notification whose last
 * attempt ended with this write; `browser.connected`, `browser.disconnected`. Test mode's
 * notifications have none. `notifications` holds each changed attempt's notification as the
 * write left it.
 */
export function webhookEventsOf(input: {
  changes: readonly WebhookChange[];
  notifications: ReadonlyMap<string, NotificationWithAttempts>;
  now: number;
}): WebhookEvent[] {
  const timestamp = isoTime(input.now);
  const events: WebhookEvent[] = [];
  const ended = new Set<string>();
  const completed: string[] = [];
  // One event per attempt a write changed (a batch of receipts may name it more than once).
  const attemptEnded = new Map<string, boolean>();
  for (const change of input.changes) {
    if (change.kind === 'attempt')
      attemptEnded.set(change.attemptId, (attemptEnded.get(change.attemptId) ?? false) || change.ended);
  }
  for (const change of input.changes) {
    switch (change.kind) {
      case 'attempt': {
        const endedNow = attemptEnded.get(change.attemptId);
        if (endedNow === undefined) break;
        attemptEnded.delete(change.attemptId);
        const found = input.notifications.get(change.notificationId);
        if (found?.notification.mode !== 'live') break;
        const attempt = found.attempts.find((candidate) => candidate.id === change.attemptId);
        if (!attempt) break;
        events.push({
          type: 'notification.attempt.updated',
          timestamp,
          data: {
            notification_id: found.notification.id,
            recipient: found.notification.recipient,
            attempt: attemptObject(attempt),
          },
          orderKey: found.notification.id,
        });
        if (endedNow && !ended.has(found.notification.id)) {
          ended.add(found.notification.id);
          if (found.attempts.every((candidate) => candidate.final)) completed.push(found.notification.id);
        }
        break;
      }
      case 'browser-connected':
        events.push({
          type: 'browser.connected',
          timestamp,
          data: { browser_id: change.browserId, recipient: change.recipient, connected_at: isoTime(change.at) },
          orderKey: change.browserId,
        });
        break;
      case 'browser-disconnected':
        events.push({
          type: 'browser.disconnected',
          timestamp,
          data: {
            browser_id: change.browserId,
            recipient: change.recipient,
            disconnected_at: isoTime(change.at),
            reason: browserDisconnectedReason(change.reason),
          },
          orderKey: change.browserId,
        });
        break;
      case 'inbox-read':
        events.push({
          type: 'notification.read',
          timestamp,
          data: { notification_id: change.notificationId, recipient: change.recipient, read_at: isoTime(change.at) },
          orderKey: change.notificationId,
        });
        break;
      case 'unread-reminder':
        events.push({
          type: 'notification.unread',
          timestamp,
          data: {
            notification_id: change.notificationId,
            recipient: change.recipient,
            created_at: isoTime(change.createdAt),
            unread_after_seconds: change.afterSeconds,
          },
          orderKey: change.notificationId,
        });
        break;
    }
  }
  for (const id of completed) {
    events.push({
      type: 'notification.completed',
      timestamp,
      data: notificationObject(input.notifications.get(id)!),
      orderKey: id,
    });
  }
  return events;
}

/** The message of an event for an endpoint: its body is `{ type, timestamp, data }`. */
export function webhookMessageOf(
  event: Pick<WebhookEvent, 'type' | 'timestamp' | 'data' | 'orderKey'>,
  endpoint: Pick<WebhookEndpointRecord, 'id' | 'projectId'>,
  now: number,
): NewWebhookMessage {
  return {
    id: newId('msg', now),
    projectId: endpoint.projectId,
    endpointId: endpoint.id,
    eventType: event.type,
    payload: { type: event.type, timestamp: event.timestamp, data: event.data },
    orderKey: event.orderKey,
    createdAt: now,
  };
}

/**
 * The messages of one project's changes for its endpoints: one per endpoint (enabled, and
 * wanting the type) and event, in the order of the events. Empty without such an endpoint.
 */
export function webhookMessagesOf(input: {
  endpoints: readonly WebhookEndpointRecord[];
  changes: readonly WebhookChange[];
  notifications: ReadonlyMap<string, NotificationWithAttempts>;
  now: number;
}): NewWebhookMessage[] {
  const messages: NewWebhookMessage[] = [];
  if (input.endpoints.length === 0) return messages;
  for (const event of webhookEventsOf(input)) {
    for (const endpoint of input.endpoints) {
      if (endpointWants(endpoint, event.type)) messages.push(webhookMessageOf(event, endpoint, input.now));
    }
  }
  return messages;
}

/**
 * What an endpoint's `events` may list for it to want the events of an attempt's change: a
 * store that can tell, in the statement that changes attempts, that no enabled endpoint of the
 * project lists any of these records no event and reads nothing more.
 */
export const ATTEMPT_EVENT_SUBSCRIPTIONS: readonly string[] = [
  '*',
  'notification.attempt.updated',
  'notification.completed',
];

/** Whether any of the endpoints wants an event of the changes (before reading what they need). */
export function anyEndpointWants(
  endpoints: readonly WebhookEndpointRecord[],
  changes: readonly WebhookChange[],
): boolean {
  for (const change of changes) {
    const types =
      change.kind === 'attempt'
        ? ['notification.attempt.updated', 'notification.completed']
        : [CHANGE_EVENT_TYPE[change.kind]];
    if (endpoints.some((endpoint) => types.some((type) => endpointWants(endpoint, type)))) return true;
  }
  return false;
}
