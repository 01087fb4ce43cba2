import { TidingsError } from './errors.js';

/** The headers of a delivery: a `Headers`, or Node's `req.headers` (lowercase names). */
export type WebhookHeadersInput = Headers | Record<string, string | string[] | undefined>;

/** Options of {@link verifyWebhook}. */
export interface VerifyWebhookOptions {
  /** How far the message's timestamp may be from now, either way, in seconds. @default 300 */
  toleranceSeconds?: number;
  /** The current time in milliseconds (tests). @default Date.now() */
  now?: number;
}

const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

function header(headers: WebhookHeadersInput, name: string): string | null {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

function refuse(message: string): TidingsError {
  return new TidingsError('WEBHOOK_INVALID', message);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return null;
  }
}

/** Equal bytes, compared in time that depends only on their length. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

/**
 * Verifies a webhook delivery of Tidings and returns its parsed JSON payload. The scheme is the
 * Standard Webhooks one: `webhook-signature` holds `v1,<base64 HMAC-SHA256>` signatures of
 * `webhook-id.webhook-timestamp.body` keyed with the endpoint's `whsec_…` secret, and the
 * timestamp must be within five minutes of now. Pass the body exactly as received (the raw
 * text or bytes, not a re-serialized object). Rejects with a `TidingsError` of code
 * `WEBHOOK_INVALID` when the message is not genuine. Web Crypto only: Node.js, Bun, Deno, edge.
 */
export async function verifyWebhook(
  payload: string | Uint8Array,
  headers: WebhookHeadersInput,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<unknown> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw refuse('A webhook-id, webhook-timestamp or webhook-signature header is missing');
  if (!/^\d+$/.test(timestamp)) throw refuse('The webhook-timestamp is not a whole number of seconds');
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) throw refuse('The webhook-timestamp is too far from now');
  const key = secret.startsWith('whsec_') ? fromBase64(secret.slice('whsec_'.length)) : null;
  if (!key || key.length === 0) throw new TypeError('The secret is the endpoint’s whsec_… signing secret');

  const body = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  const hmacKey = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const expected = new Uint8Array(
    await crypto.subtle.sign('HMAC', hmacKey, new TextEncoder().encode(`${id}.${timestamp}.${body}`)),
  );
  const matches = signatures.split(' ').some((signature) => {
    const [version, value] = signature.split(',', 2);
    const bytes = version === 'v1' && value ? fromBase64(value) : null;
    return bytes !== null && sameBytes(bytes, expected);
  });
  if (!matches) throw refuse('No webhook-signature matches the secret');
  try {
    return JSON.parse(body);
  } catch {
    throw refuse('The payload is not JSON');
  }
}

/** Webhook helpers: `webhooks.verify(payload, headers, secret)`. */
export const webhooks = { verify: verifyWebhook };
