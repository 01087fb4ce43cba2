import { TidingsError } from '../pipeline/errors.js';
import type { KeyMode } from '../ports/records.js';
import { hashSecret } from '../shared/secrets.js';

const PRINTABLE_ASCII = /^[\x20-\x7e]{1,255}$/;

/**
 * Reads the Idempotency-Key header: absent → null; 1–255 printable ASCII characters, bare (as
 * Stripe clients send it) or as a quoted structured-field string (as the IETF draft has it).
 */
export function parseIdempotencyKey(header: string | null): string | null {
  if (header === null) return null;
  let value = header.trim();
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = unquote(value.slice(1, -1));
  if (!PRINTABLE_ASCII.test(value)) throw invalidKey();
  return value;
}

/** Undoes structured-field string escaping, where only `"` and `\\` may follow a backslash. */
function unquote(inner: string): string {
  let out = '';
  for (let i = 0; i < inner.length; i++) {
    const char = inner[i];
    if (char === '"') throw invalidKey();
    if (char === '\\') {
      const next = inner[++i];
      if (next !== '"' && next !== '\\') throw invalidKey();
      out += next;
    } else {
      out += char;
    }
  }
  return out;
}

function invalidKey(): TidingsError {
  const message = 'must be 1 to 255 printable ASCII characters';
  return new TidingsError('VALIDATION_FAILED', `Idempotency-Key ${message}`, {
    errors: [{ path: 'header.Idempotency-Key', message }],
  });
}

/** JSON with object keys sorted at every depth, so that key order does not change a fingerprint. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

/** The fingerprint of a send: the canonical JSON body and the key's mode. */
export function requestFingerprint(body: unknown, mode: KeyMode): string {
  return hashSecret(`${mode}\n${canonicalJson(body)}`);
}
