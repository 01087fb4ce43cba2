import { schemaRef } from '../shared/openapi/refs.js';
import type { OpenApiOperation, OpenApiReference } from '../shared/openapi/types.js';

const param = (name: string): OpenApiReference => ({ $ref: `#/components/parameters/${name}` });

const DELIVERY =
  'Sent as a signed `POST` (Standard Webhooks) to every enabled endpoint of the project that asks for this type, ' +
  'for changes made in live mode after the endpoint was created; test keys produce no events. The message is ' +
  'written with the change itself, so none is lost or invented, and the messages of one endpoint and one ' +
  'notification (or one browser) go out one at a time, in order. Verify `webhook-signature` before trusting the ' +
  'body, and skip a `webhook-id` you already processed: a message may arrive more than once (a retry after an ' +
  'answer that was lost, a resend, a replay).';

/** What the receiver may answer, for every webhook. */
const responses: OpenApiOperation['responses'] = {
  '200': {
    description:
      'Any 2xx (200, 202, 204, …) takes delivery of the message; the body is ignored. Answer within 15 seconds.',
  },
  '429': {
    description:
      'Retried after the `Retry-After` it carries (seconds or an HTTP date, capped), or on the schedule when it ' +
      'has none.',
  },
  default: {
    description:
      'Any other answer, a redirect (never followed), no answer within 15 seconds, or a network error: retried ' +
      'with exponential backoff over about a day, then the message is `failed`. An endpoint whose messages all ' +
      'failed for 3 days is disabled.',
  },
};

function webhook(type: string, schemaName: string, summary: string, description: string): OpenApiOperation {
  return {
    operationId: `webhook${type.replace(/(?:^|[._])([a-z])/g, (_, letter: string) => letter.toUpperCase())}`,
    summary,
    description: `${description}\n\n${DELIVERY}`,
    tags: ['Webhooks'],
    security: [],
    parameters: [param('WebhookId'), param('WebhookTimestamp'), param('WebhookSignature')],
    requestBody: {
      required: true,
      description: 'The Standard Webhooks envelope: `type`, `timestamp` (when the change happened) and `data`.',
      content: { 'application/json': { schema: schemaRef(schemaName) } },
    },
    responses,
  };
}

/**
 * The webhooks Tidings sends to a project's endpoints (OpenAPI 3.1 `webhooks`), one per event
 * type, their bodies generated from the zod schemas of `webhooks/event-schemas.ts`.
 */
export function documentWebhooks(): Record<string, { post: OpenApiOperation }> {
  return {
    'notification.attempt.updated': {
      post: webhook(
        'notification.attempt.updated',
        'WebhookAttemptUpdated',
        'An attempt changed',
        "An attempt's status changed (delivered, expired, failed), a receipt recorded a time (displayed, clicked, " +
          'dismissed), or a Web Push service accepted it. `data.attempt` is the attempt after the change.',
      ),
    },
    'notification.completed': {
      post: webhook(
        'notification.completed',
        'WebhookNotificationCompleted',
        'A notification completed',
        'Every attempt of the notification is final. `data` is the notification, attempts included.',
      ),
    },
    'browser.connected': {
      post: webhook(
        'browser.connected',
        'WebhookBrowserConnected',
        'A browser connected',
        'A new browser of a recipient was registered (by a stream or a poll with a connect token).',
      ),
    },
    'browser.disconnected': {
      post: webhook(
        'browser.disconnected',
        'WebhookBrowserDisconnected',
        'A browser disconnected',
        'A browser was disconnected by its page, reaped as stale, or lost its push subscription; its attempts ' +
          'that were not final became `failed`.',
      ),
    },
    'notification.read': {
      post: webhook(
        'notification.read',
        'WebhookNotificationRead',
        'An inbox item was read',
        "A recipient's inbox item became read (docs/inbox.md): marked read by one of their browsers or by your " +
          'back end, or a `clicked` receipt came. Not sent again when it is read again after being marked unread.',
      ),
    },
    'notification.unread': {
      post: webhook(
        'notification.unread',
        'WebhookNotificationUnread',
        'An inbox item is still unread',
        'The item of a send with `notify_unread_after` was still unread and not archived that many seconds later. ' +
          'Sent at most once per notification, for example to send an email instead.',
      ),
    },
    'webhook.test': {
      post: webhook(
        'webhook.test',
        'WebhookTest',
        'A test message',
        'Sent to one endpoint only when asked (`sendTestWebhookEvent` of the admin API, `tidings webhook test`), ' +
          'whatever event types the endpoint asks for.',
      ),
    },
  };
}
