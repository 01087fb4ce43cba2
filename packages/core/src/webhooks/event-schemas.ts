import { z } from 'zod';
import { attemptObjectSchema, notificationObjectSchema } from '../delivery/object-schemas.js';
import { recipientSchema } from '../delivery/request-schemas.js';
import { idPattern } from '../shared/ids.js';

/**
 * The bodies of the webhook messages Tidings sends, as zod schemas: the OpenAPI document's
 * `webhooks` section is generated from them (docs/webhooks.md). Every body is the Standard
 * Webhooks envelope `{ type, timestamp, data }`, snake_case like the HTTP API.
 */

const time = z.iso.datetime();

/** `webhook-id`, the message id: `msg_` and 26 Crockford base32 characters. */
export const WEBHOOK_MESSAGE_ID_PATTERN = idPattern('msg');

const browserId = z.string().regex(idPattern('brw')).describe("The browser's id (`brw_…`).");

function envelope<Type extends string, Data extends z.ZodType>(type: Type, data: Data, description: string) {
  return z
    .object({
      type: z.literal(type),
      timestamp: time.describe('When the change happened (not when this request was made: see `webhook-timestamp`).'),
      data,
    })
    .describe(description);
}

/** `notification.attempt.updated`: an attempt's status or one of its times changed. */
export const attemptUpdatedEventSchema = envelope(
  'notification.attempt.updated',
  z.object({
    notification_id: z.string().regex(idPattern('ntf')).describe("The notification's id (`ntf_…`)."),
    recipient: recipientSchema.describe('Your own id of the recipient.'),
    // As `GET /v1/notifications/{id}` shows it, after the change.
    attempt: attemptObjectSchema,
  }),
  'An attempt changed: delivered, displayed, clicked, dismissed, expired, failed, or accepted by a Web Push service.',
);

/** `notification.completed`: every attempt of the notification is final. */
export const notificationCompletedEventSchema = envelope(
  'notification.completed',
  // As `GET /v1/notifications/{id}` answers it, attempts included.
  notificationObjectSchema,
  'Every attempt of a notification is final.',
);

/** `browser.connected`: a browser was registered for a recipient. */
export const browserConnectedEventSchema = envelope(
  'browser.connected',
  z.object({
    browser_id: browserId,
    recipient: recipientSchema.describe('Your own id of the recipient.'),
    connected_at: time.describe('When the browser was registered.'),
  }),
  'A browser of a recipient connected for the first time (a resume of a known browser is not an event).',
);

/** Why a browser was disconnected. */
export const browserDisconnectReasonSchema = z
  .enum(['disconnected', 'stale'])
  .describe(
    '`disconnected`: the page disconnected it, or its Web Push service said its subscription is gone. ' +
      '`stale`: it was not seen for too long and was reaped.',
  );

/** `browser.disconnected`: a browser was disconnected; its attempts that were not final failed. */
export const browserDisconnectedEventSchema = envelope(
  'browser.disconnected',
  z.object({
    browser_id: browserId,
    recipient: recipientSchema.describe('Your own id of the recipient.'),
    disconnected_at: time.describe('When it was disconnected.'),
    reason: browserDisconnectReasonSchema,
  }),
  'A browser was disconnected; its attempts that were not final became `failed`.',
);

/** `notification.read`: a recipient's inbox item became read. */
export const notificationReadEventSchema = envelope(
  'notification.read',
  z.object({
    notification_id: z.string().regex(idPattern('ntf')).describe("The notification's id (`ntf_…`)."),
    recipient: recipientSchema.describe('Your own id of the recipient.'),
    read_at: time.describe('When it was read.'),
  }),
  'An inbox item became read: marked read by a browser of the recipient or by your back end, or clicked.',
);

/** `notification.unread`: the reminder a send asked for with `notify_unread_after`. */
export const notificationUnreadEventSchema = envelope(
  'notification.unread',
  z.object({
    notification_id: z.string().regex(idPattern('ntf')).describe("The notification's id (`ntf_…`)."),
    recipient: recipientSchema.describe('Your own id of the recipient.'),
    created_at: time.describe('When the notification was sent.'),
    unread_after_seconds: z.int().describe('The `notify_unread_after` of the send.'),
  }),
  'An inbox item was still unread (and not archived) `notify_unread_after` seconds after its send. Sent once.',
);

/** `webhook.test`: sent only on request, to one endpoint, whatever its event types. */
export const webhookTestEventSchema = envelope(
  'webhook.test',
  z.object({
    endpoint_id: z.string().regex(idPattern('whe')).describe("The endpoint's id (`whe_…`)."),
  }),
  'A test message, sent to one endpoint when asked (`sendTestWebhookEvent`, `tidings webhook test`).',
);

/** Each event type with the schema of its body. */
export const webhookEventSchemas = {
  'notification.attempt.updated': attemptUpdatedEventSchema,
  'notification.completed': notificationCompletedEventSchema,
  'browser.connected': browserConnectedEventSchema,
  'browser.disconnected': browserDisconnectedEventSchema,
  'notification.read': notificationReadEventSchema,
  'notification.unread': notificationUnreadEventSchema,
  'webhook.test': webhookTestEventSchema,
} as const;

/** The body of a webhook message of any type. */
export type WebhookEventBody = z.infer<(typeof webhookEventSchemas)[keyof typeof webhookEventSchemas]>;
