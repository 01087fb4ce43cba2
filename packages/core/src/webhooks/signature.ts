import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';

/** How a webhook signing secret starts, as in the Standard Webhooks specification. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Bytes of key behind a signing secret: 32, as long as the HMAC-SHA256 it keys. */
const SECRET_BYTES = 32;

const WEBHOOK_SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A new signing secret: `whsec_` and the base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)))}`;
}

/** True when `secret` is `whsec_` and base64, as {@link generateWebhookSecret} makes them. */
export function isWellFormedWebhookSecret(secret: string): boolean {
  return WEBHOOK_SECRET_PATTERN.test(secret);
}

/**
 * One signature of a message, `v1,` and the base64 of HMAC-SHA256 over `id.timestamp.payload`,
 * keyed with the bytes the secret's base64 stands for.
 */
export function webhookSignature(secret: string, id: string, timestampSeconds: number, payload: string): string {
  if (!isWellFormedWebhookSecret(secret)) throw new TypeError('A webhook secret is whsec_ and base64');
  const key = fromBase64(secret.slice(WEBHOOK_SECRET_PREFIX.length));
  return `v1,${toBase64(hmac(sha256, key, utf8ToBytes(`${id}.${timestampSeconds}.${payload}`)))}`;
}

/** The headers of one delivery of a message, signed by every secret given (the current one first). */
export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  /** Space-separated signatures, one per secret: a receiver accepts a message when one matches. */
  'webhook-signature': string;
}

/**
 * Signs a message as the Standard Webhooks specification says, so that its official libraries
 * (and `webhooks.verify` of `@tidings/client`) verify it. While a secret is being rolled, both
 * the new and the old one sign.
 */
export function signWebhook(message: {
  id: string;
  timestampSeconds: number;
  payload: string;
  secrets: readonly string[];
}): WebhookHeaders {
  const { id, timestampSeconds, payload, secrets } = message;
  if (secrets.length === 0) throw new TypeError('A webhook is signed with at least one secret');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((secret) => webhookSignature(secret, id, timestampSeconds, payload)).join(' '),
  };
}
