/**
 * The SQL that keeps an attempt's times in the order of its life: `sent_at ≤ delivered_at ≤`
 * each of `displayed_at`, `clicked_at`, `dismissed_at` (docs/api.md#attempt-states). A receipt's
 * time proves the browser had the attempt by then, so a time of sending or of delivery that would
 * come after one yields to it, whichever was recorded first: the record of sending is written in
 * batches after the event, receipts may reach another instance first, and a browser's clock
 * stamps receipts while the server's stamps sending.
 */

/** The times of what the browser did with an attempt it had. */
const ENGAGEMENT_TIMES = ['displayed_at', 'clicked_at', 'dismissed_at'] as const;

/**
 * `time`, or the earliest of `columns` where one is earlier; a null column does not count
 * (SQLite's `MIN(a, b, …)` is null as soon as one argument is, hence the `COALESCE`s).
 */
function noLaterThan(time: string, columns: readonly string[]): string {
  return `MIN(${time}, ${columns.map((column) => `COALESCE(${column}, ${time})`).join(', ')})`;
}

/** The `sent_at` to record for sending at `time`: never after a receipt's time. */
export function sentAtFor(time: string): string {
  return noLaterThan(time, ['delivered_at', ...ENGAGEMENT_TIMES]);
}

/** The `delivered_at` to record for a delivery at `time`: never after a display, click or dismissal. */
export function deliveredAtFor(time: string): string {
  return noLaterThan(time, ENGAGEMENT_TIMES);
}

/**
 * The assignments that a display, click or dismissal at `time` makes to the earlier times: each
 * that is set and later moves to `time`; one not set stays null (`MIN` with a null is null).
 */
export function earlierTimesNoLaterThan(time: string): string {
  return `sent_at = MIN(sent_at, ${time}), delivered_at = MIN(delivered_at, ${time})`;
}
