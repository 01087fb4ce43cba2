import type { Clock } from '../ports/clock.js';
import type { VapidKeyRecord } from '../ports/records.js';
import type { PushStore } from '../ports/store.js';
import { type SecretPlace, type SecretSealer, unsealedSecrets } from '../shared/sealing/sealer.js';

/** The row the VAPID private key is sealed for: the deployment's one row of `vapid_keys`. */
export const VAPID_KEY_PLACE: SecretPlace = { table: 'vapid_keys', id: '1', projectId: null };

/** A new pair as the store keeps it: the private key sealed under the operator's key, if one is set. */
export async function sealedVapidKeyPair(sealer: SecretSealer): Promise<{ publicKey: string; privateKey: string }> {
  const pair = await generateVapidKeyPair();
  return { publicKey: pair.publicKey, privateKey: sealer.seal(pair.privateKey, VAPID_KEY_PLACE) };
}

/** base64url without padding. */
function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/**
 * A fresh P-256 key pair for VAPID, made with Web Crypto: the public key as the 65-byte
 * uncompressed point and the private key as its 32-byte scalar, both base64url.
 */
export async function generateVapidKeyPair(): Promise<{ publicKey: string; privateKey: string }> {
  const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
  const jwk = await crypto.subtle.exportKey('jwk', pair.privateKey);
  if (!jwk.d) throw new Error('Web Crypto exported no private scalar');
  return { publicKey: base64url(raw), privateKey: jwk.d };
}

/**
 * The deployment's VAPID keys as stored (the private key sealed when a key is set): the stored
 * pair, or a new one stored if none is (instances starting together keep the first stored, see
 * `Store.ensureVapidKeys`).
 */
export async function ensureVapidKeys(
  store: PushStore,
  now: number,
  sealer: SecretSealer = unsealedSecrets,
): Promise<VapidKeyRecord> {
  const stored = await store.getVapidKeys();
  if (stored) return stored;
  return store.ensureVapidKeys({ ...(await sealedVapidKeyPair(sealer)), now });
}

/** How long an instance answers with the public key it read before reading it again (a rotation by the CLI). */
const PUBLIC_KEY_REFRESH_MS = 60_000;

/**
 * The VAPID public key for connect answers, read once and again at most every minute, so that a
 * rotation made by another process reaches every instance within a minute.
 */
export function createVapidPublicKeySource(
  store: PushStore,
  clock: Clock,
  sealer: SecretSealer = unsealedSecrets,
): () => Promise<string> {
  let cached: { key: Promise<VapidKeyRecord>; readAt: number } | null = null;
  return async () => {
    const now = clock.now();
    if (cached === null || now - cached.readAt >= PUBLIC_KEY_REFRESH_MS) {
      const key = ensureVapidKeys(store, now, sealer);
      cached = { key, readAt: now };
      // A failed read is not kept: the next connect tries again.
      key.catch(() => {
        if (cached?.key === key) cached = null;
      });
    }
    return (await cached.key).publicKey;
  };
}
