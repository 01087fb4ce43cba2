import type { JobsOf } from '../jobs.js';
import type { NotificationRecord, NotificationWithAttempts } from '../records.js';
import type { IdempotencyInput, StoredResponse } from './idempotency.js';

/** Input of {@link NotificationStore.createNotification}. */
export interface CreateNotificationInput {
  notification: NotificationRecord;
  /** Makes the id of each attempt; called once per connected browser. */
  newAttemptId: () => string;
  /**
   * The request's idempotency key. The store checks it and records the result in the send's own
   * transaction, so a request that dies on the way leaves nothing behind.
   */
  idempotency: IdempotencyInput | null;
  /** Renders the response stored for replays, from what was recorded. */
  render: (created: NotificationWithAttempts) => StoredResponse;
  /**
   * Jobs to enqueue with the send, computed from what it recorded, in the send's own
   * transaction (docs/jobs.md): they exist exactly when the notification does. Not called for a
   * replay, a mismatch or a refused send.
   */
  jobs?: JobsOf<NotificationWithAttempts>;
  /**
   * When the recipient has no connected browser: record the notification with no attempt (an
   * item of the recipient's inbox, for a live send) instead of refusing it
   * (docs/inbox.md#an-inbox-for-users-who-are-away).
   */
  keepForInbox?: boolean;
}

/** Outcome of {@link NotificationStore.createNotification}. */
export type CreateNotificationResult =
  | {
      kind: 'created';
      created: NotificationWithAttempts;
      response: StoredResponse;
      /**
       * The version of the recipient's inbox the send's item was made at (docs/inbox.md#versions);
       * absent or null when the store does not say (the browsers then read their lists again).
       */
      inboxVersion?: number | null;
    }
  | { kind: 'no-connected-browser' }
  /** An unexpired result under the idempotency key, same fingerprint: nothing was written. */
  | { kind: 'replay'; response: StoredResponse }
  /** An unexpired result under the idempotency key, another fingerprint: nothing was written. */
  | { kind: 'mismatch' };

/** Sends: a notification recorded with its attempts in one transaction, and read back. */
export interface NotificationStore {
  /**
   * In one transaction: checks the idempotency key (an unexpired result replays or mismatches,
   * and nothing is written), finds the connected browsers of the recipient, records the
   * notification and one attempt per browser (final at once in test mode), records the result
   * under the idempotency key, and counts live usage. Sends with one key serialize in the store
   * (from any process): exactly one creates, the others see its result. A refused send (no
   * connected browser) records nothing, so the key stays free.
   */
  createNotification(input: CreateNotificationInput): Promise<CreateNotificationResult>;
  getNotification(input: { projectId: string; id: string }): Promise<NotificationWithAttempts | null>;
}
