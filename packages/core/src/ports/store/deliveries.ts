import type { AttemptPath, Delivery, Receipt } from '../records.js';

/** Outcome of {@link DeliveryStore.listPendingDeliveries}. */
export interface PendingDeliveries {
  deliveries: Delivery[];
  disconnectedBrowserIds: string[];
}

/** Outcome of {@link DeliveryStore.applyReceipts}. */
export interface AppliedReceipts {
  /** How many receipts named an attempt of this browser (repeats included). */
  named: number;
  /** The attempts that this call moved to `delivered`: none already final, none twice. */
  deliveredAttemptIds: string[];
}

/** What an open stream delivers and what the browser answers: the attempts it holds, their sending, the receipts. */
export interface DeliveryStore {
  /** The browser's attempts that are not final and not past their expiry, in stream order. */
  listDeliveries(input: { browserId: string; now: number }): Promise<Delivery[]>;
  /**
   * What the open streams of an instance should hold, for many browsers in one read (an
   * instance catches its streams up every few seconds, and after its hub may have lost
   * messages). `deliveries`: the attempts of the given browsers that are not final and not past
   * their expiry, ordered by browser and, within a browser, by seq, as {@link listDeliveries}
   * lists them. `disconnectedBrowserIds`: the given browsers that are not connected (disconnected,
   * reaped as stale, or unknown), whose streams must close. Ids may repeat; each is answered once.
   * `afterSeqs` (optional, one per id): list only the attempts of `browserIds[i]` whose seq is
   * greater than `afterSeqs[i]` (the smallest, for an id given twice), which its streams may
   * still lack; 0 lists them all.
   */
  listPendingDeliveries(input: {
    browserIds: string[];
    now: number;
    afterSeqs?: readonly number[];
  }): Promise<PendingDeliveries>;
  /**
   * Moves the given attempts from `accepted` to `sent` by `via`; others are left as they are.
   * `sentAts` (optional, one per id): when each was written, its `sentAt`; else `now` for all.
   * A `sentAt` after a receipt the attempt already has yields to the receipt's time
   * ({@link DeliveryStore.applyReceipts}).
   */
  markAttemptsSent(input: {
    attemptIds: string[];
    now: number;
    via: AttemptPath;
    sentAts?: readonly number[];
  }): Promise<void>;
  /**
   * Applies receipts of one browser. Receipts for attempts of other browsers are ignored. A
   * `delivered` receipt also sets `sentAt` when the record of sending has not landed yet
   * (sending is recorded in batches, and a fast browser can answer first).
   * An attempt's times keep the order of its life, whatever order they arrive in:
   * `sentAt ≤ deliveredAt ≤` each of `displayedAt`, `clickedAt`, `dismissedAt`. A receipt's time
   * proves the browser had the attempt by then, so a `sentAt` or `deliveredAt` that would come
   * after it (recorded late, or stamped by another clock) takes its time; a time not set stays null.
   * Returns how many receipts named an attempt of this browser, and which attempts became
   * `delivered` by this call (what the metrics count as attempts ended).
   */
  applyReceipts(input: { browserId: string; receipts: Receipt[]; now: number }): Promise<AppliedReceipts>;
}
