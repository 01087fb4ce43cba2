import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { SecretKey } from './keyring.js';

/** How a sealed value starts; the version names the cipher and the layout after it. */
export const SEALED_PREFIX = 'sealed:v1:';

/** XChaCha20-Poly1305's nonce: 24 bytes, long enough to be drawn at random for every seal. */
const NONCE_BYTES = 24;

/**
 * The row a secret belongs to, bound into its seal as associated data: a sealed value copied to
 * another row (or another table, or another project) does not open there.
 */
export interface SecretPlace {
  table: string;
  id: string;
  /** Null for a secret of the deployment (the VAPID key). */
  projectId: string | null;
}

/** What opening a stored value found. */
export type OpenedSecret =
  /** Sealed, and opened with the key `keyId`. */
  | { kind: 'opened'; value: string; keyId: string }
  /** Not sealed: stored before a key was set, or without one. */
  | { kind: 'clear'; value: string }
  /** Sealed under a key this instance does not hold (a wrong key, or none). */
  | { kind: 'unknown-key'; keyId: string }
  /** Sealed under a key held here, but it does not open: it was altered or belongs to another row. */
  | { kind: 'broken'; keyId: string };

/** Seals and opens the secrets Tidings must keep usable, under the operator's keys. */
export interface SecretSealer {
  /** The id of the key that seals, or null when no key is set and secrets are stored as they are. */
  readonly sealingKeyId: string | null;
  /** The ids of every key that opens, the sealing one first. */
  readonly keyIds: readonly string[];
  /** `value` sealed for `place` under the first key; `value` itself when no key is set. */
  seal(value: string, place: SecretPlace): string;
  /** What a stored value holds; never throws on a bad value. */
  open(stored: string, place: SecretPlace): OpenedSecret;
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  const standard = text.replaceAll('-', '+').replaceAll('_', '/');
  try {
    const binary = atob(standard.padEnd(standard.length + ((4 - (standard.length % 4)) % 4), '='));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return null;
  }
}

/** The associated data of a place: its parts, each ended by a NUL, so that no two places share it. */
function associatedData(place: SecretPlace): Uint8Array {
  return utf8ToBytes(`${SEALED_PREFIX}\0${place.table}\0${place.id}\0${place.projectId ?? ''}\0`);
}

/** True when a stored value is sealed (whether or not this instance can open it). */
export function isSealed(stored: string): boolean {
  return stored.startsWith(SEALED_PREFIX);
}

/** The id of the key a sealed value was sealed under, or null when it is not sealed. */
export function sealedKeyId(stored: string): string | null {
  if (!isSealed(stored)) return null;
  const end = stored.indexOf(':', SEALED_PREFIX.length);
  return end === -1 ? null : stored.slice(SEALED_PREFIX.length, end);
}

/**
 * A sealer over `keys` (the first seals, every one opens), with XChaCha20-Poly1305 from
 * `@noble/ciphers` and a random nonce per seal. A sealed value reads
 * `sealed:v1:<key id>:<base64url of nonce and ciphertext>`. Without keys values are stored as
 * they are and only clear values open.
 */
export function createSecretSealer(keys: readonly SecretKey[]): SecretSealer {
  const byId = new Map(keys.map((key) => [key.id, key.bytes]));
  const sealing = keys[0] ?? null;
  return {
    sealingKeyId: sealing?.id ?? null,
    keyIds: keys.map((key) => key.id),
    seal(value, place) {
      if (sealing === null) return value;
      const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
      const sealed = xchacha20poly1305(sealing.bytes, nonce, associatedData(place)).encrypt(utf8ToBytes(value));
      const joined = new Uint8Array(nonce.length + sealed.length);
      joined.set(nonce);
      joined.set(sealed, nonce.length);
      return `${SEALED_PREFIX}${sealing.id}:${toBase64Url(joined)}`;
    },
    open(stored, place) {
      if (!isSealed(stored)) return { kind: 'clear', value: stored };
      const keyId = sealedKeyId(stored) ?? '';
      const key = byId.get(keyId);
      if (!key) return { kind: 'unknown-key', keyId };
      const joined = fromBase64Url(stored.slice(SEALED_PREFIX.length + keyId.length + 1));
      if (joined === null || joined.length <= NONCE_BYTES) return { kind: 'broken', keyId };
      try {
        const opened = xchacha20poly1305(key, joined.subarray(0, NONCE_BYTES), associatedData(place)).decrypt(
          joined.subarray(NONCE_BYTES),
        );
        return { kind: 'opened', value: new TextDecoder('utf-8', { fatal: true }).decode(opened), keyId };
      } catch {
        return { kind: 'broken', keyId };
      }
    },
  };
}

/** The sealer of an instance without keys: stores secrets as they are. */
export const unsealedSecrets: SecretSealer = createSecretSealer([]);
