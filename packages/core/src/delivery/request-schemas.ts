import { z } from 'zod';
import { type FieldError, TidingsError } from '../pipeline/errors.js';
import { idPattern } from '../shared/ids.js';

/** A recipient id: the customer's own, 1–128 characters of `A-Z a-z 0-9 _ - . : @`. */
export const recipientSchema = z
  .string()
  .regex(/^[A-Za-z0-9_\-.:@]{1,128}$/, 'must be 1 to 128 characters of A-Z a-z 0-9 _ - . : @');

const MAX_URL_LENGTH = 2048;
const MAX_DATA_BYTES = 4096;

/** An absolute http(s) URL, or a path on the customer's site (`/inbox/42`). */
const linkSchema = z
  .string()
  .max(MAX_URL_LENGTH)
  .refine((value) => {
    if (value.startsWith('/')) return !value.startsWith('//') && !/\s/.test(value);
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL or a path starting with /');

const dataSchema = z
  .record(z.string(), z.unknown())
  .refine(
    (value) => utf8ByteLength(JSON.stringify(value)) <= MAX_DATA_BYTES,
    `must serialize to at most ${MAX_DATA_BYTES} bytes`,
  );

/**
 * How many bytes `text` takes in UTF-8 (a lone surrogate as the 3 of U+FFFD, as TextEncoder
 * writes it), counted without encoding it: every send with `data` checks its size.
 */
export function utf8ByteLength(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) {
      bytes += 1;
      continue;
    }
    // Three bytes, or four for a surrogate pair, which is two UTF-16 units.
    bytes += 2;
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return bytes;
}

/** The body of POST /v1/notifications (docs/api.md#post-v1notifications). Unknown fields are refused. */
export const notificationBodySchema = z.strictObject({
  recipient: recipientSchema.describe('Your own id of the user: 1–128 characters of `A-Z a-z 0-9 _ - . : @`.'),
  title: z.string().min(1).max(200),
  body: z.string().max(2000).nullish(),
  url: linkSchema.nullish().describe('Opened on click: an absolute http(s) URL, or a path starting with `/`.'),
  icon: linkSchema.nullish().describe('An absolute http(s) URL, or a path starting with `/`.'),
  tag: z.string().max(64).nullish().describe('Groups notifications on the page, e.g. one per conversation.'),
  data: dataSchema.nullish().describe('Any JSON object for your page, at most 4 KiB serialized.'),
  ttl: z
    .int()
    .min(1)
    .max(604_800)
    .nullish()
    .describe('Seconds to wait for delivery before the attempts expire; default 86400.'),
  notify_unread_after: z
    .int()
    .min(1)
    .max(2_592_000)
    .nullish()
    .describe(
      'Seconds after which a `notification.unread` webhook is sent if the recipient has not read the notification in their inbox (live mode).',
    ),
  keep_for_inbox: z
    .boolean()
    .nullish()
    .describe(
      'True: when the recipient has no connected browser, the notification is kept for their inbox (201, no attempt) instead of refused with 409 NO_CONNECTED_BROWSER.',
    ),
});

/** A validated notification body. */
export type NotificationBody = z.infer<typeof notificationBodySchema>;

/** A notification id, as an inbox names its items. */
const inboxItemIdSchema = z.string().regex(idPattern('ntf'), 'must be a notification id (ntf_…)');

/** The most items one page of an inbox holds, and one mark names. */
export const MAX_INBOX_PAGE = 100;

/** Which page of an inbox to read: the browser's body and the query of the server's GET alike. */
export const inboxListFields = {
  unread: z.boolean().optional().describe('Only the unread items. Default false.'),
  archived: z.boolean().optional().describe('The archived items only (true), or the others (false, the default).'),
  limit: z.int().min(1).max(MAX_INBOX_PAGE).optional().describe('Items per page, 1–100; default 20.'),
  starting_after: inboxItemIdSchema.optional().describe('The last id of the previous page.'),
};

/** A mark: one action, on some items or on all of them. */
export const inboxMarkFields = {
  action: z.enum(['seen', 'read', 'unread', 'archive', 'unarchive']),
  ids: z.array(inboxItemIdSchema).min(1).max(MAX_INBOX_PAGE).optional().describe('1–100 notification ids.'),
  all: z.literal(true).optional().describe('Every item the action applies to, instead of `ids`.'),
};

/** Exactly one of `ids` and `all`. */
function oneTarget(value: { ids?: unknown; all?: unknown }, context: z.RefinementCtx): void {
  if ((value.ids === undefined) === (value.all === undefined)) {
    context.addIssue({ code: 'custom', path: ['ids'], message: 'give either ids or all: true' });
  }
}

/** The body of POST /v1/recipients/{recipient}/inbox/mark. */
export const inboxMarkBodySchema = z.strictObject(inboxMarkFields).superRefine(oneTarget);

/** The body of POST /v1/browsers/{id}/inbox/mark. */
export const browserInboxMarkBodySchema = z
  .strictObject({ browser_secret: z.string().min(1).max(100), ...inboxMarkFields })
  .superRefine(oneTarget);

/** The body of POST /v1/browsers/{id}/inbox. */
export const browserInboxListBodySchema = z.strictObject({
  browser_secret: z.string().min(1).max(100),
  ...inboxListFields,
});

/** The body of POST /v1/browsers/{id}/inbox/counts. */
export const browserInboxCountsBodySchema = z.strictObject({ browser_secret: z.string().min(1).max(100) });

/** The query of GET /v1/recipients/{recipient}/inbox: the same fields, as strings. */
export const inboxListQuerySchema = z.strictObject({
  unread: z.enum(['true', 'false']).optional(),
  archived: z.enum(['true', 'false']).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_INBOX_PAGE).optional(),
  starting_after: inboxItemIdSchema.optional(),
});

/** The body of POST /v1/connect-tokens; the longest ttl is an option of the instance. */
export function connectTokenBodySchema(maxTtlSeconds: number) {
  return z.strictObject({
    recipient: recipientSchema.describe('Your own id of the signed-in user.'),
    ttl_seconds: z.int().min(1).max(maxTtlSeconds).nullish().describe('Lifetime of the token; default 3600.'),
  });
}

const browserIdSchema = z.string().regex(/^brw_[0-9a-z]{26}$/, 'must be a browser id');
const browserSecretSchema = z.string().min(1).max(100);

/** The body of POST /v1/connect/{token} when polling: the browser's credentials. */
export const connectPollBodySchema = z.strictObject({
  browser_id: browserIdSchema,
  browser_secret: browserSecretSchema,
});

/** One receipt in POST /v1/events. */
export const receiptSchema = z.strictObject({
  type: z.enum(['delivered', 'displayed', 'clicked', 'dismissed']),
  attempt_id: z.string().min(1).max(64),
  at: z.iso
    .datetime({ offset: true })
    .nullish()
    .describe('When it happened (RFC 3339); default now, never later than now.'),
});

/** The body of POST /v1/events: at most 100 receipts. */
export const eventsBodySchema = z.strictObject({
  browser_id: browserIdSchema,
  browser_secret: browserSecretSchema,
  events: z.array(receiptSchema).min(1).max(100),
});

/** The body of POST /v1/browsers/{id}/disconnect. */
export const disconnectBodySchema = z.strictObject({
  browser_secret: browserSecretSchema,
});

/** base64url without padding of exactly `bytes` bytes. */
function base64urlOfBytes(bytes: number, what: string) {
  const length = Math.ceil((bytes * 4) / 3);
  return z
    .string()
    .regex(new RegExp(`^[A-Za-z0-9_-]{${length}}={0,2}$`), `must be the base64url of ${bytes} bytes (${what})`);
}

/** The body of PUT /v1/browsers/{id}/push-subscription: the browser's `PushSubscription.toJSON()`, with its secret. */
export const pushSubscriptionBodySchema = z.strictObject({
  browser_secret: browserSecretSchema,
  endpoint: z.string().min(1).max(2048).describe('The push service URL of the subscription (`https:`).'),
  keys: z.strictObject({
    p256dh: base64urlOfBytes(65, 'an uncompressed P-256 public key')
      // An uncompressed point starts with the byte 4, which base64 writes as a leading `B`.
      .regex(/^B/, 'must be an uncompressed P-256 public key (its first byte 4)')
      .describe("The browser's P-256 public key."),
    auth: base64urlOfBytes(16, 'the authentication secret').describe("The browser's authentication secret."),
  }),
  expiration_time: z.int().min(0).nullish().describe('`PushSubscription.expirationTime`: epoch milliseconds, or null.'),
});

/** The body of DELETE /v1/browsers/{id}/push-subscription. */
export const pushUnsubscribeBodySchema = z.strictObject({
  browser_secret: browserSecretSchema,
});

/** Parses with a schema, or throws VALIDATION_FAILED listing every invalid field. */
export function parseBody<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors: FieldError[] = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
  const first = errors[0];
  const detail = first ? `${first.path || 'body'}: ${first.message}` : 'The request is not valid';
  throw new TidingsError('VALIDATION_FAILED', detail, { errors });
}
