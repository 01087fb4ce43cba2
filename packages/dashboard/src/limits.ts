/**
 * The longest values the dashboard's forms take: one place for the forms' checks and the counters
 * their fields show, so that the two cannot disagree.
 */

/** A project's or a key's name (the admin API's own limit). */
export const MAX_NAME_LENGTH = 100;
/** A webhook endpoint's URL (the admin API's own limit). */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** A webhook endpoint's description (the admin API's own limit). */
export const MAX_DESCRIPTION_LENGTH = 200;
/** A passkey's name. */
export const MAX_PASSKEY_NAME_LENGTH = 60;

/**
 * The error of a value over `limit` characters, for zod's `.max()`: how long it is and what to do,
 * as a value that long is refused whole rather than cut.
 */
export function tooLong(limit: number) {
  return { error: (issue: { input?: unknown }) => tooLongMessage(String(issue.input ?? '').length, limit) };
}

/** What a field says of a value `length` characters long, over its `limit`. */
export function tooLongMessage(length: number, limit: number): string {
  return `This is ${length} characters long: shorten it to ${limit} or fewer.`;
}

/** A recipient in the log's filter (the API's own limit of a recipient). */
export const MAX_RECIPIENT_LENGTH = 128;
