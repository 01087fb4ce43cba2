import type { z } from 'zod';
import type { AttemptRecord, Delivery, NotificationRecord } from '../../ports/records.js';
import type { deliveryPayloadSchema } from '../object-schemas.js';
import { isoTime, stringJson } from '../serialize.js';

/** The delivery of one attempt, as a stream or a poll hands it to the browser. */
export function toDelivery(
  notification: NotificationRecord,
  attempt: AttemptRecord,
  inboxVersion: number | null = null,
): Delivery {
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
    inboxVersion,
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
    inbox_version: delivery.inboxVersion,
  };
}

/**
 * `JSON.stringify(deliveryPayload(delivery))`, character for character, written out field by
 * field: one per browser of every live send. Only the attempt id is the browser's own; the rest
 * is the send's, built once for the deliveries of a send that come one after the other.
 */
export function deliveryPayloadJson(d: Delivery): string {
  return `{"attempt_id":${JSON.stringify(d.attemptId)},${sharedPartOf(d).json}`;
}

const encoder = new TextEncoder();

/**
 * The `notification` event of a delivery on the stream of `browserId`, as bytes: what
 * `sseEventOfJson('notification', sseEventId(browserId, d.seq), deliveryPayloadJson(d))`
 * encodes, with the send's shared part encoded once for all its browsers.
 */
export function deliveryEventBytes(browserId: string, d: Delivery): Uint8Array {
  const head = encoder.encode(
    `id: ${browserId}.${d.seq}\nevent: notification\ndata: {"attempt_id":${JSON.stringify(d.attemptId)},`,
  );
  const tail = sharedPartOf(d).eventTail();
  const bytes = new Uint8Array(head.byteLength + tail.byteLength);
  bytes.set(head, 0);
  bytes.set(tail, head.byteLength);
  return bytes;
}

/** The part of a delivery's payload that every browser's copy of a send shares. */
class SharedPart {
  readonly json: string;
  #tail: Uint8Array | null = null;

  constructor(readonly of: Delivery) {
    const d = of;
    this.json =
      `"notification_id":${JSON.stringify(d.notificationId)},` +
      `"title":${JSON.stringify(d.title)},"body":${stringJson(d.body)},"url":${stringJson(d.url)},` +
      `"icon":${stringJson(d.icon)},"tag":${stringJson(d.tag)},"data":${d.data === null ? 'null' : JSON.stringify(d.data)},` +
      `"created_at":"${isoTime(d.createdAt)}","expires_at":"${isoTime(d.expiresAt)}",` +
      `"inbox_version":${d.inboxVersion === null ? 'null' : String(d.inboxVersion)}}`;
  }

  /** The shared JSON and the end of the event, encoded when first asked for. */
  eventTail(): Uint8Array {
    this.#tail ??= encoder.encode(`${this.json}\n\n`);
    return this.#tail;
  }

  /** Whether `d` is a delivery of the same send: every field of the shared part is the same. */
  matches(d: Delivery): boolean {
    const o = this.of;
    return (
      o.notificationId === d.notificationId &&
      o.data === d.data &&
      o.title === d.title &&
      o.body === d.body &&
      o.url === d.url &&
      o.icon === d.icon &&
      o.tag === d.tag &&
      o.createdAt === d.createdAt &&
      o.expiresAt === d.expiresAt &&
      o.inboxVersion === d.inboxVersion
    );
  }
}

/**
 * The shared part last built: a send hands its deliveries on one after the other, so the next
 * delivery is most often one of the same send. The data is compared as the same object (as a
 * send's deliveries share it); a delivery with equal data in another object builds its own.
 */
let lastShared: SharedPart | null = null;

function sharedPartOf(d: Delivery): SharedPart {
  const last = lastShared;
  if (last?.matches(d)) return last;
  const made = new SharedPart(d);
  lastShared = made;
  return made;
}
