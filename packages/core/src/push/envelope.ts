// The plaintext of a Web Push message: the envelope the service worker of @tidings/browser reads,
// kept within what one message carries.

import { type DeliveryPayload, deliveryPayload } from '../delivery/stream/delivery.js';
import type { Delivery } from '../ports/records.js';
import { MAX_PUSH_PLAINTEXT_BYTES } from './web-push.js';

/** What a push message carries: the browser it is for and its notification as the stream carries it. */
export interface PushEnvelope {
  tidings: 1;
  browser_id: string;
  notification: DeliveryPayload;
}

function envelopeText(browserId: string, notification: DeliveryPayload): string {
  const envelope: PushEnvelope = { tidings: 1, browser_id: browserId, notification };
  return JSON.stringify(envelope);
}

function fits(text: string, maxBytes: number): boolean {
  return Buffer.byteLength(text, 'utf8') <= maxBytes;
}

/** The longest prefix of `value` (whole code points, then `…`) for which `render` fits. */
function truncated(value: string, render: (value: string) => string, maxBytes: number): string | null {
  const points = Array.from(value);
  let low = 0;
  let high = points.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(render(`${points.slice(0, middle).join('')}…`), maxBytes)) low = middle;
    else high = middle - 1;
  }
  return low === 0 ? null : `${points.slice(0, low).join('')}…`;
}

/**
 * The message's plaintext for one attempt: `{ tidings: 1, browser_id, notification }`, where
 * `notification` is what the event stream's `notification` event carries. A notification too
 * large for one message (docs/web-push.md#what-a-message-holds) is reduced, step by step until it
 * fits: `data` dropped, then `icon`, then `body` cut (ending in `…`), then `title` cut,
 * then `url` dropped. The page's own stream and poll still carry the whole notification.
 */
export function pushEnvelope(delivery: Delivery, maxBytes = MAX_PUSH_PLAINTEXT_BYTES): string {
  const browserId = delivery.browserId;
  let notification = deliveryPayload(delivery);
  let text = envelopeText(browserId, notification);
  if (fits(text, maxBytes)) return text;

  notification = { ...notification, data: null };
  text = envelopeText(browserId, notification);
  if (fits(text, maxBytes)) return text;

  notification = { ...notification, icon: null };
  text = envelopeText(browserId, notification);
  if (fits(text, maxBytes)) return text;

  if (notification.body !== null) {
    const base = notification;
    const body = truncated(base.body ?? '', (value) => envelopeText(browserId, { ...base, body: value }), maxBytes);
    notification = { ...notification, body };
    text = envelopeText(browserId, notification);
    if (fits(text, maxBytes)) return text;
  }

  const base = notification;
  const title = truncated(base.title, (value) => envelopeText(browserId, { ...base, title: value }), maxBytes);
  notification = { ...notification, title: title ?? '…' };
  text = envelopeText(browserId, notification);
  if (fits(text, maxBytes)) return text;

  notification = { ...notification, url: null };
  return envelopeText(browserId, notification);
}
