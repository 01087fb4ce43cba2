import { z } from 'zod';
import { type ErrorCode, errorCodes } from '../pipeline/errors.js';
import { type IdPrefix, idPattern } from '../shared/ids.js';
import { BROWSER_SECRET_PATTERN, CONNECT_TOKEN_PATTERN } from '../shared/secrets.js';
import { recipientSchema } from './request-schemas.js';

/**
 * The objects the HTTP API answers with, as zod schemas: the public types are inferred from
 * them and the OpenAPI document is generated from them, so the two cannot drift apart. They
 * are never run on the hot path: answers are serialized by hand (serialize.ts) and the
 * conformance tests check those bytes against the document.
 */

function idSchema(prefix: IdPrefix, what: string) {
  return z.string().regex(idPattern(prefix)).describe(`The ${what}'s id (\`${prefix}_…\`).`);
}

const time = z.iso.datetime();

/** The deployment's VAPID public key, as a browser passes it to `pushManager.subscribe`. */
const vapidPublicKeySchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{87}$/)
  .nullable()
  .describe(
    'The VAPID public key of this server (base64url, no padding, of the 65-byte uncompressed P-256 point), the `applicationServerKey` of a push subscription; null when Web Push is off.',
  );
const nullableTime = (what: string) => time.nullable().describe(`When ${what}; null until then.`);

/** The status of a delivery attempt. */
export const attemptStatusSchema = z
  .enum(['accepted', 'sent', 'delivered', 'expired', 'failed'])
  .describe(
    '`accepted`: recorded and queued (final at once in test mode). `sent`: written to an open stream or a poll. ' +
      '`delivered`: the browser posted a delivered receipt. `expired`: the ttl passed first. ' +
      '`failed`: the browser disconnected or was reaped as stale first.',
  );

/** The public attempt object: one per connected browser of the recipient, per notification. */
export const attemptObjectSchema = z.object({
  object: z.literal('attempt'),
  id: idSchema('att', 'attempt'),
  browser_id: idSchema('brw', 'browser'),
  status: attemptStatusSchema,
  final: z.boolean().describe('True once the status can no longer change.'),
  accepted_at: time.describe('When the attempt was recorded.'),
  sent_at: nullableTime('it was written to the browser'),
  via: z
    .enum(['stream', 'poll', 'push'])
    .nullable()
    .describe(
      "How it went out: written to an open event stream, answered to a poll, or accepted by the browser's Web Push service; null while not sent (or when the delivery receipt came first).",
    ),
  push_accepted_at: nullableTime('the push service of the browser accepted a Web Push message of it'),
  delivered_at: nullableTime('the browser confirmed delivery'),
  failed_at: nullableTime('it failed'),
  expired_at: nullableTime('it expired'),
  reason: z
    .enum(['browser_disconnected', 'browser_stale', 'ttl_expired', 'push_rejected'])
    .nullable()
    .describe(
      'Why an attempt ended without a delivery receipt; null otherwise. `push_rejected`: the push service refused its Web Push message for good (too large, malformed, VAPID refused).',
    ),
  displayed_at: nullableTime('the browser showed it (receipt)'),
  clicked_at: nullableTime('the user clicked it (receipt)'),
  dismissed_at: nullableTime('the user dismissed it (receipt)'),
});

/** The public notification object, with the status of each of its attempts. */
export const notificationObjectSchema = z.object({
  object: z.literal('notification'),
  id: idSchema('ntf', 'notification'),
  mode: z.enum(['live', 'test']).describe('The mode of the key that sent it.'),
  recipient: recipientSchema.describe('Your own id of the recipient.'),
  title: z.string(),
  body: z.string().nullable(),
  url: z.string().nullable(),
  icon: z.string().nullable(),
  tag: z.string().nullable(),
  data: z.record(z.string(), z.unknown()).nullable(),
  ttl: z.int().min(1).describe('Seconds the notification may wait for delivery.'),
  created_at: time,
  expires_at: time,
  status: z.enum(['pending', 'completed']).describe('`completed` once every attempt is final.'),
  attempts: z.array(attemptObjectSchema),
});

/** The public connect token object; the token itself appears only in this answer. */
export const connectTokenObjectSchema = z.object({
  object: z.literal('connect_token'),
  token: z.string().regex(CONNECT_TOKEN_PATTERN).describe('Shown once; reusable until it expires.'),
  recipient: recipientSchema,
  expires_at: time,
  connect_url: z.string().describe('Where the browser connects: `GET` for a stream, `POST` to poll.'),
});

/** The answer that registers a browser without a stream (`POST /v1/connect/{token}`, 201). */
export const browserObjectSchema = z.object({
  object: z.literal('browser'),
  browser_id: idSchema('brw', 'browser'),
  browser_secret: z.string().regex(BROWSER_SECRET_PATTERN).describe('Shown once: keep it to poll, ack and disconnect.'),
  recipient: recipientSchema,
  stream_url: z.string().describe('Resumes this browser as an event stream.'),
  vapid_public_key: vapidPublicKeySchema,
});

/** A browser's Web Push subscription as the API shows it: never its keys, nor the endpoint's path. */
export const pushSubscriptionObjectSchema = z.object({
  object: z.literal('push_subscription'),
  browser_id: idSchema('brw', 'browser'),
  endpoint_host: z.string().describe('The host of the push service the subscription is with.'),
  created_at: time,
  updated_at: time,
  expires_at: time.nullable().describe('When the push service said the subscription ends; null when it did not.'),
});

/** What a browser receives for one attempt: the data of a `notification` event, or an item of a poll. */
export const deliveryPayloadSchema = z.object({
  attempt_id: idSchema('att', 'attempt'),
  notification_id: idSchema('ntf', 'notification'),
  title: z.string(),
  body: z.string().nullable(),
  url: z.string().nullable(),
  icon: z.string().nullable(),
  tag: z.string().nullable(),
  data: z.record(z.string(), z.unknown()).nullable(),
  created_at: time,
  expires_at: time,
  inbox_version: z
    .number()
    .int()
    .nullable()
    .describe(
      'The version of the recipient’s inbox the notification’s item was made at (docs/inbox.md#versions); null when not known (a delivery sent again after a reconnect, a poll).',
    ),
});

/** The answer to a poll (`POST /v1/connect/{token}` with the browser's credentials, 200). */
export const deliveryListSchema = z.object({
  object: z.literal('list'),
  browser_id: idSchema('brw', 'browser'),
  notifications: z.array(deliveryPayloadSchema).describe('Every attempt of the browser that is not final; now `sent`.'),
});

/** The data of the `ready` event that opens every event stream. */
export const readyEventSchema = z.object({
  browser_id: idSchema('brw', 'browser'),
  browser_secret: z
    .string()
    .regex(BROWSER_SECRET_PATTERN)
    .nullable()
    .describe('Present when this stream registered the browser; null on a resume.'),
  recipient: recipientSchema,
  heartbeat_ms: z.int().min(1).describe('How often a `: ping` comment arrives.'),
  resumed: z.boolean().describe('True when the stream resumed the browser of the resume position.'),
  vapid_public_key: vapidPublicKeySchema,
});

/** The answer to `POST /v1/events`. */
export const receiptBatchSchema = z.object({
  object: z.literal('receipt_batch'),
  accepted: z.int().min(0).describe('How many receipts named an attempt of this browser.'),
});

/** One item of a recipient's inbox (docs/inbox.md). */
export const inboxItemObjectSchema = z.object({
  object: z.literal('inbox_item'),
  id: idSchema('ntf', 'notification'),
  recipient: recipientSchema.describe('Your own id of the recipient.'),
  title: z.string(),
  body: z.string().nullable(),
  url: z.string().nullable(),
  icon: z.string().nullable(),
  tag: z.string().nullable(),
  data: z.record(z.string(), z.unknown()).nullable(),
  created_at: time,
  seen_at: nullableTime('it was shown in a list, read, archived or displayed'),
  read_at: nullableTime('it was read (a mark, or a click)'),
  archived_at: nullableTime('it was archived'),
});

/** The counts of a recipient's items that are not archived. */
export const inboxCountsObjectSchema = z.object({
  object: z.literal('inbox_counts'),
  total: z.int().min(0).describe('Items not archived.'),
  unread: z.int().min(0).describe('Items not archived and not read.'),
  unseen: z.int().min(0).describe('Items not archived and not seen.'),
  version: z
    .int()
    .min(0)
    .describe(
      'Rises with every change of the recipient’s inbox: of two counts (updates from several instances may arrive out of order), keep the one with the higher version.',
    ),
});

/** A page of a recipient's inbox, newest first. */
export const inboxListObjectSchema = z.object({
  object: z.literal('list'),
  data: z.array(inboxItemObjectSchema),
  has_more: z.boolean().describe('True when there are more items after the last one (`starting_after`).'),
  counts: inboxCountsObjectSchema,
});

/** The actions of a mark. */
export const inboxActionSchema = z
  .enum(['seen', 'read', 'unread', 'archive', 'unarchive'])
  .describe('`seen`, `read`, `unread`, `archive` or `unarchive` (docs/inbox.md#marking).');

/** What a mark changed: its answer, and the data of the `inbox` event of every connected browser of the recipient. */
export const inboxUpdateObjectSchema = z.object({
  object: z.literal('inbox_update'),
  action: inboxActionSchema,
  all: z.boolean().describe('True when the mark applied to every item.'),
  items: z.array(inboxItemObjectSchema).describe('The items it changed, as they are now; empty for `all`.'),
  not_found: z.array(z.string()).describe('The ids given that are not in the recipient’s inbox.'),
  counts: inboxCountsObjectSchema,
  base_version: z
    .number()
    .int()
    .describe(
      'The version of the inbox just before this change; `counts.version` is the one after it. A list applies the changes in this order (docs/inbox.md#versions).',
    ),
  cutoff_version: z
    .number()
    .int()
    .nullable()
    .describe(
      'With `all`: the mark changed only items made at or before this version of the inbox (an item of a send it crossed is not among them); null otherwise.',
    ),
  marked_at: time.describe('When the mark was made: the time it set on the items it changed.'),
});

const codes = Object.keys(errorCodes) as [ErrorCode, ...ErrorCode[]];

/** One invalid field of a request. */
export const fieldErrorSchema = z.object({
  path: z.string().describe('The field, e.g. `title` or `events.0.type`; `header.Idempotency-Key` for a header.'),
  message: z.string(),
});

/** RFC 9457 problem details, as every error is answered. */
export const problemSchema = z.object({
  type: z.string().describe('`urn:tidings:problem:<code in kebab case>`.'),
  title: z.string(),
  status: z.int().min(400).max(599),
  detail: z.string(),
  code: z.enum(codes).describe('The stable, machine-readable error code.'),
  request_id: idSchema('req', 'request'),
  errors: z.array(fieldErrorSchema).optional().describe('With VALIDATION_FAILED: each invalid field.'),
});
