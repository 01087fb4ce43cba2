import type { RequestLogBody } from './store.js';

/** What stands in the log for every secret it removed. */
export const REDACTED = '[redacted]';

/** The most bytes of a body the request log keeps (docs/api.md#request-log). */
export const REQUEST_LOG_BODY_CAP_BYTES = 16_384;

/**
 * The fields whose values are secrets wherever they appear in a JSON body: a connect token and
 * the URLs made of it, a browser secret, keys, passwords and the like. Matched by name in the
 * text, so that a body that is not valid JSON (or was cut) loses them too.
 */
const SECRET_FIELDS = [
  'token',
  'connect_url',
  'stream_url',
  'browser_secret',
  'secret',
  'api_key',
  'apikey',
  'password',
  'authorization',
  'access_token',
  'refresh_token',
  'client_secret',
  'p256dh',
  'auth',
];

/** A secret field and its value: a JSON string (escapes included), or a bare value up to `,`, `}` or `]`. */
const SECRET_FIELD_PATTERN = new RegExp(
  `("(?:${SECRET_FIELDS.join('|')})"\\s*:\\s*)("(?:[^"\\\\]|\\\\.)*"?|[^,}\\]\\s]+)`,
  'gi',
);

/**
 * Secrets by their shape, wherever they are (a recipient's data, a problem's detail, a query):
 * API keys, connect tokens, browser secrets, webhook signing secrets, bearer credentials.
 */
// No word boundary before them: a key glued to other text (`idsk_live_…`) is a key all the same.
const SECRET_VALUE_PATTERN =
  /sk_(?:live|test)_[A-Za-z0-9]+|ct_[A-Za-z0-9]{32}|bs_[A-Za-z0-9]{32}|whsec_[A-Za-z0-9+/=]+|\bBearer\s+[^\s"',;]+/g;

/** A query parameter whose name says it holds a secret. */
const SECRET_QUERY_PATTERN = /([?&](?:[^=&]*(?:token|secret|key|password|auth)[^=&]*)=)[^&#]*/gi;

/**
 * `text` with every secret the log recognises replaced by {@link REDACTED}. A field is found by
 * its quoted name, so a text without a quote (a path, a query) is only searched for secrets by
 * their shape.
 */
export function redactSecrets(text: string): string {
  const fieldsRemoved = text.includes('"')
    ? text.replace(SECRET_FIELD_PATTERN, (_, field: string) => `${field}"${REDACTED}"`)
    : text;
  return fieldsRemoved.replace(SECRET_VALUE_PATTERN, REDACTED);
}

/** A query string (with its `?`) without the values of parameters named for secrets, nor secrets by shape. */
export function redactQuery(query: string): string {
  if (query === '') return query;
  return redactSecrets(query.replace(SECRET_QUERY_PATTERN, `$1${REDACTED}`));
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A body as the log keeps it: secrets removed first (so that no cut leaves half of one behind),
 * then cut to `capBytes` of UTF-8 at a character's boundary. Null for no body or an empty one.
 */
export function logBody(text: string | null, capBytes: number = REQUEST_LOG_BODY_CAP_BYTES): RequestLogBody | null {
  if (text === null || text === '') return null;
  // A NUL character is no text to a database (PostgreSQL refuses it): it is kept as U+FFFD.
  const redacted = redactSecrets(text).replaceAll('\0', '\uFFFD');
  // Fewer characters than the cap's quarter are within it whatever their encoding.
  if (redacted.length * 4 <= capBytes) return { text: redacted, truncated: false };
  const bytes = encoder.encode(redacted);
  if (bytes.byteLength <= capBytes) return { text: redacted, truncated: false };
  let end = capBytes;
  // Back off continuation bytes (10xxxxxx), so the cut falls between two characters.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: decoder.decode(bytes.subarray(0, end)), truncated: true };
}
