import type { EndedAttempt } from '../records.js';

/** What the sweeper runs on a timer, and the end of the store. */
export interface MaintenanceStore {
  /** Moves attempts that are not final and whose notification expired to `expired`. */
  expireAttempts(input: { now: number }): Promise<EndedAttempt[]>;
  /**
   * Deletes idempotency records and connect tokens past their expiry, finished jobs (done or
   * failed) past their `keepUntil`, and webhook messages (with their requests) created more than
   * `WEBHOOK_MESSAGE_RETENTION_MS` (30 days) before `now`.
   */
  purgeExpired(input: { now: number }): Promise<void>;
  close(): Promise<void>;
}
