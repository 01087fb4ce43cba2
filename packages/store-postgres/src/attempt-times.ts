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
 * `time`, or the earliest of `columns` (of the row `row`, when given) where one is earlier; null
 * while `time` is (`least` passes over nulls, and would otherwise make a time out of none).
 */
function noLaterThan(time: string, columns: readonly string[], row?: string): string {
  const times = columns.map((column) => (row ? `${row}.${column}` : column));
  return `CASE WHEN ${time} IS NULL THEN NULL ELSE least(${time}, ${times.join(', ')}) END`;
}

/** The `sent_at` to record for sending at `time`: never after a receipt's time. */
export function sentAtFor(time: string, row?: string): string {
  return noLaterThan(time, ['delivered_at', ...ENGAGEMENT_TIMES], row);
}

/** The `delivered_at` to record for a delivery at `time`: never after a display, click or dismissal. */
export function deliveredAtFor(time: string, row?: string): string {
  return noLaterThan(time, ENGAGEMENT_TIMES, row);
}
