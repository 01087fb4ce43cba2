import type { JobsOf } from '../ports/jobs.js';
import type { BrowserRecord, NotificationRecord, NotificationWithAttempts, Receipt } from '../ports/records.js';
import type { NotificationBody } from './request-schemas.js';

/** A live send whose jobs a feature may add to (docs/jobs.md). */
export interface SendBeingRecorded {
  notification: NotificationRecord;
  body: NotificationBody;
}

/** Receipts of one browser, applied. */
export interface ReceiptsApplied {
  browser: BrowserRecord;
  receipts: readonly Receipt[];
  now: number;
  requestId: string;
}

/**
 * Where the features of an instance join the contract's own paths (a send, receipts, the sweep
 * of stale browsers, the connect answers), gathered once from the features it was given.
 */
export interface DeliveryHooks {
  /** The jobs each feature adds to a live send, computed from what it created, in its transaction. */
  sendJobs: readonly ((
    send: SendBeingRecorded,
  ) => Promise<JobsOf<NotificationWithAttempts> | null> | JobsOf<NotificationWithAttempts> | null)[];
  /** What a browser's receipts do beyond its attempts, before their 202. */
  afterReceipts: readonly ((applied: ReceiptsApplied) => Promise<void>)[];
  /** Browsers kept from being reaped as stale while seen after the time each returns. */
  keepsBrowsersSeenAfter: readonly ((now: number) => number)[];
  /** The key a browser subscribes to Web Push with; null when no feature sends Web Push. */
  vapidPublicKey: (() => Promise<string>) | null;
}

/** Hooks of an instance without features. */
export const NO_HOOKS: DeliveryHooks = {
  sendJobs: [],
  afterReceipts: [],
  keepsBrowsersSeenAfter: [],
  vapidPublicKey: null,
};

/** The jobs of a send: every feature's, or null when none adds any. */
export async function sendJobsOf(
  hooks: DeliveryHooks,
  send: SendBeingRecorded,
): Promise<JobsOf<NotificationWithAttempts> | null> {
  const computed: JobsOf<NotificationWithAttempts>[] = [];
  for (const hook of hooks.sendJobs) {
    const jobs = await hook(send);
    if (jobs !== null) computed.push(jobs);
  }
  if (computed.length === 0) return null;
  if (computed.length === 1) return computed[0]!;
  return (created) => computed.flatMap((jobs) => jobs(created));
}
