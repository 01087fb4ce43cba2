import { acceptedAttempt } from '../delivery/accepted-attempt.js';
import { attemptObject, isoTime, notificationObject } from '../delivery/serialize.js';
import type { NotificationRecord } from '../ports/records.js';
import { newId } from '../shared/ids.js';

/** The recipient of every sample event: no user of an app is named so. */
export const SAMPLE_RECIPIENT = 'tidings-sample-recipient';

/**
 * The `data` of an event of `type` as a test sends it: the shape a real one has, with fresh ids
 * that name nothing stored, the recipient {@link SAMPLE_RECIPIENT}, and a notification titled as
 * a sample, delivered to one browser a second after it was sent.
 */
export function sampleEventData(type: string, now: number): Record<string, unknown> {
  const browserId = newId('brw', now);
  const notification: NotificationRecord = {
    id: newId('ntf', now),
    projectId: 'sample',
    mode: 'live',
    recipient: SAMPLE_RECIPIENT,
    title: 'A sample notification',
    body: 'Sent by a webhook test: nothing was delivered to anyone.',
    url: null,
    icon: null,
    tag: null,
    data: null,
    ttl: 86_400,
    createdAt: now - 1000,
    expiresAt: now - 1000 + 86_400_000,
    apiKeyId: null,
    requestId: null,
    idempotencyKey: null,
  };
  const attempt = {
    ...acceptedAttempt(notification, newId('att', now), browserId, 1),
    status: 'delivered' as const,
    final: true,
    sentAt: now - 900,
    sentVia: 'stream' as const,
    deliveredAt: now,
  };
  switch (type) {
    case 'notification.attempt.updated':
      return { notification_id: notification.id, recipient: notification.recipient, attempt: attemptObject(attempt) };
    case 'notification.completed':
      return { ...notificationObject({ notification, attempts: [attempt] }) };
    case 'browser.connected':
      return { browser_id: browserId, recipient: notification.recipient, connected_at: isoTime(now) };
    case 'browser.disconnected':
      return {
        browser_id: browserId,
        recipient: notification.recipient,
        disconnected_at: isoTime(now),
        reason: 'disconnected',
      };
    case 'notification.read':
      return { notification_id: notification.id, recipient: notification.recipient, read_at: isoTime(now) };
    case 'notification.unread':
      return {
        notification_id: notification.id,
        recipient: notification.recipient,
        created_at: isoTime(notification.createdAt),
        unread_after_seconds: 900,
      };
    default:
      throw new TypeError(`No sample of the event type ${type}`);
  }
}
