import { isoTime } from '../delivery/serialize.js';
import type { Clock } from '../ports/clock.js';
import type { VapidKeyRecord } from '../ports/records.js';
import type { PushStore } from '../ports/store.js';
import { type SecretSealer, unsealedSecrets } from '../shared/sealing/sealer.js';
import { ensureVapidKeys, sealedVapidKeyPair } from './vapid-keys.js';

/** The deployment's VAPID key as operators see it: the public key only, never the private one. */
export interface VapidKeyObject {
  object: 'vapid_key';
  public_key: string;
  created_at: string;
}

/** The operators' view of the VAPID key pair. */
export interface VapidAdminApi {
  /** The deployment's public key (a pair is made and stored if there is none yet). */
  getVapidKey(): Promise<VapidKeyObject>;
  /**
   * Replaces the pair. Subscriptions made with the old public key stop working at the push
   * services (they answer 401/403): browsers must subscribe again with the new key, which the
   * browser SDK does when the key in a connect answer differs from the one it subscribed with.
   */
  rotateVapidKey(): Promise<VapidKeyObject>;
}

function vapidKeyObject(keys: VapidKeyRecord): VapidKeyObject {
  return { object: 'vapid_key', public_key: keys.publicKey, created_at: isoTime(keys.createdAt) };
}

/** The VAPID part of the admin API. */
export function createVapidAdmin(
  store: PushStore,
  clock: Clock,
  sealer: SecretSealer = unsealedSecrets,
): VapidAdminApi {
  return {
    async getVapidKey() {
      return vapidKeyObject(await ensureVapidKeys(store, clock.now(), sealer));
    },
    async rotateVapidKey() {
      const pair = await sealedVapidKeyPair(sealer);
      return vapidKeyObject(await store.rotateVapidKeys({ ...pair, now: clock.now() }));
    },
  };
}
