// Web Push messages (RFC 8030) with an encrypted payload (RFC 8291, aes128gcm) and VAPID
// (RFC 8292), built by the `web-push` library and sent through an outbound sender, so that the
// request obeys the same policy as every address a customer gives (https only, no internal
// addresses, no redirects, a timeout, a capped answer).
import { createHash } from 'node:crypto';
import webpush from 'web-push';
import type { OutboundResult } from '../ports/outbound.js';

/** A browser's push subscription: where to post, and its keys for the payload's encryption. */
export interface PushSubscriptionTarget {
  endpoint: string;
  /** The browser's P-256 public key, uncompressed, base64url (65 bytes). */
  p256dh: string;
  /** The browser's authentication secret, base64url (16 bytes). */
  auth: string;
}

/** A VAPID key pair, each part base64url: the public key uncompressed (65 bytes), the private 32 bytes. */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** The deployment's VAPID identity: its keys and the contact (`mailto:` or `https:`) push services see. */
export interface VapidIdentity extends VapidKeys {
  subject: string;
}

/** RFC 8030's `Urgency`. */
export type PushUrgency = 'very-low' | 'low' | 'normal' | 'high';

/** One message to one subscription. */
export interface PushMessage {
  subscription: PushSubscriptionTarget;
  /** The plaintext; at most {@link MAX_PUSH_PLAINTEXT_BYTES} bytes. */
  payload: string;
  vapid: VapidIdentity;
  /** How long the push service keeps the message for an offline browser (`TTL`), in seconds. */
  ttlSeconds: number;
  /** @default 'normal' */
  urgency?: PushUrgency;
  /** `Topic`: a newer message with the same topic replaces an undelivered one. See {@link pushTopic}. */
  topic?: string;
}

/** A request ready for an outbound sender. */
export interface PushRequest {
  url: string;
  method: 'POST';
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * The largest plaintext one message carries. Push services accept 4,096 bytes of encrypted body
 * (RFC 8030 section 7.2); aes128gcm takes 86 for its header (salt, record size, the sender's key),
 * 16 for the tag and 1 for the padding delimiter.
 */
export const MAX_PUSH_PLAINTEXT_BYTES = 4096 - 86 - 16 - 1;

/** A fresh P-256 VAPID key pair. */
export function generateVapidKeys(): VapidKeys {
  const { publicKey, privateKey } = webpush.generateVAPIDKeys();
  return { publicKey, privateKey };
}

/**
 * The request for one message: the payload encrypted for the subscription's keys (aes128gcm),
 * `Authorization: vapid t=…, k=…` signed with the deployment's key for the endpoint's origin,
 * `TTL`, `Urgency` and `Topic`. Throws a `RangeError` for a payload over
 * {@link MAX_PUSH_PLAINTEXT_BYTES}, and the library's error for malformed keys.
 */
export function pushRequest(message: PushMessage): PushRequest {
  const size = Buffer.byteLength(message.payload, 'utf8');
  if (size > MAX_PUSH_PLAINTEXT_BYTES) {
    throw new RangeError(`push payload is ${size} bytes; at most ${MAX_PUSH_PLAINTEXT_BYTES} fit in one message`);
  }
  const details = webpush.generateRequestDetails(
    {
      endpoint: message.subscription.endpoint,
      keys: { p256dh: message.subscription.p256dh, auth: message.subscription.auth },
    },
    message.payload,
    {
      vapidDetails: message.vapid,
      TTL: Math.max(0, Math.floor(message.ttlSeconds)),
      urgency: message.urgency ?? 'normal',
      contentEncoding: 'aes128gcm',
      ...(message.topic === undefined ? {} : { topic: message.topic }),
    },
  );
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(details.headers)) headers[name] = String(value);
  return { url: details.endpoint, method: 'POST', headers, body: new Uint8Array(details.body ?? Buffer.alloc(0)) };
}

/**
 * A `Topic` for a key (a notification's tag, say): RFC 8030 allows at most 32 characters of the
 * URL-safe base64 alphabet, so the key is hashed (SHA-256) and its first 32 characters kept.
 */
export function pushTopic(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('base64url').slice(0, 32);
}

/**
 * What a push service's answer means for the message:
 * - `accepted`: 2xx; the service holds it for the browser.
 * - `gone`: 404 or 410; the subscription no longer exists and the browser is to be disconnected.
 * - `retry`: 408, 429, 5xx, a timeout or a network failure; try again later (`retryAfterMs` from
 *   `Retry-After` when the service gave one).
 * - `failed`: anything else, with a reason: 413 (too large), 400 (malformed), 401/403 (the VAPID
 *   key is not the one the subscription was made with), a redirect (never followed), or an
 *   address the outbound policy refused.
 */
export type PushOutcome =
  | { kind: 'accepted'; status: number; durationMs: number }
  | { kind: 'gone'; status: number }
  | { kind: 'retry'; retryAfterMs: number | null; reason: string }
  | { kind: 'failed'; reason: string };

/** Reads an outbound result as a {@link PushOutcome}. */
export function pushOutcome(result: OutboundResult): PushOutcome {
  if (result.kind === 'refused') return { kind: 'failed', reason: `endpoint refused: ${result.reason}` };
  if (result.kind === 'failed') return { kind: 'retry', retryAfterMs: null, reason: result.reason };
  const { status } = result;
  if (status >= 200 && status < 300) return { kind: 'accepted', status, durationMs: result.durationMs };
  if (status === 404 || status === 410) return { kind: 'gone', status };
  if (status === 408 || status === 429 || status >= 500) {
    return { kind: 'retry', retryAfterMs: result.retryAfterMs, reason: `push service answered ${status}` };
  }
  if (status === 413) return { kind: 'failed', reason: 'payload too large for the push service (413)' };
  if (status === 401 || status === 403) {
    return { kind: 'failed', reason: `push service refused the VAPID credentials (${status})` };
  }
  if (status >= 300 && status < 400)
    return { kind: 'failed', reason: `push service redirected (${status}), not followed` };
  const excerpt = result.body.trim().slice(0, 200);
  return { kind: 'failed', reason: `push service refused the message (${status})${excerpt ? `: ${excerpt}` : ''}` };
}
