import type { z } from 'zod';
import type { deliveryPayloadSchema } from '../object-schemas.js';
import { isoTime, stringJson } from '../objects.js';
import type { AttemptRecord, Delivery, NotificationRecord } from '../types.js';

/** The delivery of one attempt, as a stream or a poll hands it to the browser. */
export function toDelivery(notification: NotificationRecord, attempt: AttemptRecord): Delivery {
  return {
    attemptId: attempt.id,
    browserId: attempt.browserId,
    seq: attempt.seq,
    notificationId: notification.id,
    title: notification.title,
    body: notification.body,
    url: notification.url,
    icon: notification.icon,
    tag: notification.tag,
    data: notification.data,
    createdAt: notification.createdAt,
    expiresAt: notification.expiresAt,
  };
}

/** The JSON payload of a `notification` event, and an item of a poll's answer. */
export type DeliveryPayload = z.infer<typeof deliveryPayloadSchema>;

/** The payload the browser receives for a delivery. */
export function deliveryPayload(delivery: Delivery): DeliveryPayload {
  return {
    attempt_id: delivery.attemptId,
    notification_id: delivery.notificationId,
    title: delivery.title,
    body: delivery.body,
    url: delivery.url,
    icon: delivery.icon,
    tag: delivery.tag,
    data: delivery.data,
    created_at: isoTime(delivery.createdAt),
    expires_at: isoTime(delivery.expiresAt),
  };
}

/**
 * `JSON.stringify(deliveryPayload(delivery))`, character for character, written out field by
 * field: one per browser of every live send.
 */
export function deliveryPayloadJson(d: Delivery): string {
  return (
    `{"attempt_id":${JSON.stringify(d.attemptId)},"notification_id":${JSON.stringify(d.notificationId)},` +
    `"title":${JSON.stringify(d.title)},"body":${stringJson(d.body)},"url":${stringJson(d.url)},` +
    `"icon":${stringJson(d.icon)},"tag":${stringJson(d.tag)},"data":${d.data === null ? 'null' : JSON.stringify(d.data)},` +
    `"created_at":"${isoTime(d.createdAt)}","expires_at":"${isoTime(d.expiresAt)}"}`
  );
}
