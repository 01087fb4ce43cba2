import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** Bytes of an operator key: 32, a 256-bit key for XChaCha20-Poly1305. */
export const SECRET_KEY_BYTES = 32;

/** One operator key: its bytes and the short id written into what it seals. */
export interface SecretKey {
  /** 12 hex characters derived from the key (never the key itself): names it in sealed values and messages. */
  id: string;
  bytes: Uint8Array;
}

/** A key given in a wrong form: the message says how, never the key. */
export class SecretKeyError extends Error {
  override name = 'SecretKeyError';
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array | null {
  const standard = text.replaceAll('-', '+').replaceAll('_', '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(standard)) return null;
  const padded = standard.padEnd(standard.length + ((4 - (standard.length % 4)) % 4), '=');
  let binary: string;
  try {
    binary = atob(padded);
  } catch {
    return null;
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The id of a key: the first 12 hex characters of SHA-256 over a label and the key's bytes. */
function keyIdOf(bytes: Uint8Array): string {
  const label = utf8ToBytes('tidings secret key id\0');
  const input = new Uint8Array(label.length + bytes.length);
  input.set(label);
  input.set(bytes, label.length);
  return bytesToHex(sha256(input)).slice(0, 12);
}

/**
 * A key from its text: the base64 (or base64url) of 32 bytes, as `tidings secrets generate-key`
 * or `openssl rand -base64 32` print it. `where` names where it came from in the error.
 */
export function parseSecretKey(text: string, where: string): SecretKey {
  const bytes = fromBase64(text.trim());
  if (bytes === null || bytes.length !== SECRET_KEY_BYTES) {
    throw new SecretKeyError(
      `${where} is not a secrets key: it must be the base64 of ${SECRET_KEY_BYTES} random bytes (tidings secrets generate-key makes one)`,
    );
  }
  return { id: keyIdOf(bytes), bytes };
}

/**
 * The keys of a list, as an option or a file gives them: the first seals, every one opens. Blank
 * entries are skipped; the same key twice is refused, as it is surely a mistake in a rotation.
 */
export function parseSecretKeys(texts: readonly string[], where: string): SecretKey[] {
  const keys = texts
    .map((text) => text.trim())
    .filter((text) => text !== '')
    .map((text, index) => parseSecretKey(text, `${where} (key ${index + 1})`));
  const ids = new Set<string>();
  for (const key of keys) {
    if (ids.has(key.id)) throw new SecretKeyError(`${where} holds the key ${key.id} twice`);
    ids.add(key.id);
  }
  return keys;
}

/** A new operator key: the base64 of 32 random bytes. */
export function generateSecretKey(): string {
  return toBase64(crypto.getRandomValues(new Uint8Array(SECRET_KEY_BYTES)));
}
