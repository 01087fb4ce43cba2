import type { AttemptReason, PushSubscriptionRecord, VapidKeyRecord } from '../ports/records.js';

/** Outcome of {@link PushStore.putPushSubscription}. */
export type PutPushSubscriptionResult =
  | { kind: 'saved'; subscription: PushSubscriptionRecord }
  /** The browser was disconnected (by request, as stale, or after its subscription was gone). */
  | { kind: 'browser-disconnected' }
  | { kind: 'not-found' };

/** Web Push (docs/web-push.md): the VAPID key pair, browsers' subscriptions and the record of pushing. */
export interface PushStore {
  /** The deployment's VAPID key pair, or null before one was stored. */
  getVapidKeys(): Promise<VapidKeyRecord | null>;
  /**
   * Stores `keys` unless a pair is stored already, and returns the stored pair: instances starting
   * together all end with the one pair that was stored first.
   */
  ensureVapidKeys(input: { publicKey: string; privateKey: string; now: number }): Promise<VapidKeyRecord>;
  /** Replaces the stored pair (or stores the first); returns the new one. */
  rotateVapidKeys(input: { publicKey: string; privateKey: string; now: number }): Promise<VapidKeyRecord>;
  /**
   * Saves a connected browser's push subscription, replacing the one it had: `createdAt` stays
   * while the endpoint is the same. Also records the browser as seen at `now`.
   */
  putPushSubscription(input: {
    browserId: string;
    endpoint: string;
    p256dh: string;
    auth: string;
    expiresAt: number | null;
    now: number;
  }): Promise<PutPushSubscriptionResult>;
  getPushSubscription(browserId: string): Promise<PushSubscriptionRecord | null>;
  /** Deletes a browser's push subscription; false when it had none. */
  deletePushSubscription(input: { browserId: string }): Promise<boolean>;
  /** The connected browsers of a recipient that have a push subscription. */
  listPushSubscribedBrowsers(input: { projectId: string; recipient: string }): Promise<string[]>;
  /**
   * Records that the push service accepted a message of an attempt: `pushAcceptedAt` (the first
   * time), `sentVia` `push`, `sentAt` if not yet, and `sent` if it was `accepted`; the status of
   * a final attempt stays. Idempotent. False when the attempt is unknown. The service worker may
   * report before the push service answers: `sentAt` is then no later than its receipts' times,
   * as `DeliveryStore.applyReceipts` keeps them.
   */
  markAttemptPushed(input: { attemptId: string; now: number }): Promise<boolean>;
  /** Moves an attempt that is not final to `failed` with the reason; false when it was final or unknown. */
  failAttempt(input: { attemptId: string; reason: AttemptReason; now: number }): Promise<boolean>;
}
