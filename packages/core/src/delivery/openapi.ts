import { apiKey, idParameter, jsonOrText, noAuth, param, schemaRef } from '../shared/openapi/refs.js';
import { commonHeaders, jsonResponse, problemResponses } from '../shared/openapi/responses.js';
import type { OpenApiOperation } from '../shared/openapi/types.js';

// The OpenAPI operations of the contract's routes (delivery/routes.ts declares each with its handler).

export const createNotification: OpenApiOperation = {
  operationId: 'createNotification',
  summary: 'Send a notification',
  description:
    'Records one attempt per connected browser of the recipient and delivers it (live key), or records them ' +
    '`accepted` and final at once and sends nothing (test key). Send an `Idempotency-Key` to make retries safe: ' +
    'a replay answers the stored status and body with `Idempotent-Replayed: true`.',
  tags: ['Notifications'],
  security: apiKey,
  parameters: [param('IdempotencyKey')],
  requestBody: { required: true, content: { 'application/json': { schema: schemaRef('NotificationCreate') } } },
  responses: {
    '201': jsonResponse('The notification, with one attempt per connected browser.', 'Notification', {
      ...commonHeaders(true),
      'Idempotent-Replayed': { $ref: '#/components/headers/IdempotentReplayed' },
    }),
    ...problemResponses(
      [
        'VALIDATION_FAILED',
        'UNAUTHORIZED',
        'FORBIDDEN',
        'PROJECT_SUSPENDED',
        'NO_CONNECTED_BROWSER',
        'IDEMPOTENCY_IN_PROGRESS',
        'PAYLOAD_TOO_LARGE',
        'UNSUPPORTED_MEDIA_TYPE',
        'IDEMPOTENCY_MISMATCH',
        'RATE_LIMITED',
        'SERVICE_UNAVAILABLE',
      ],
      true,
    ),
  },
};

export const getNotification: OpenApiOperation = {
  operationId: 'getNotification',
  summary: 'Read a notification',
  description:
    'The notification and the status of each of its attempts, as it stands now. Poll a few seconds apart and ' +
    'stop when `status` is `completed`. Another project’s id is answered 404, as an unknown one.',
  tags: ['Notifications'],
  security: apiKey,
  parameters: [idParameter('The notification id (`ntf_…`).')],
  responses: {
    '200': jsonResponse('The notification as it stands now.', 'Notification', commonHeaders(true)),
    ...problemResponses(
      ['UNAUTHORIZED', 'FORBIDDEN', 'PROJECT_SUSPENDED', 'NOT_FOUND', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE'],
      true,
    ),
  },
};

export const createConnectToken: OpenApiOperation = {
  operationId: 'createConnectToken',
  summary: 'Mint a connect token',
  description:
    'A short-lived token your server hands to the signed-in user’s page, which connects with it. Checked and ' +
    'limited exactly like the notification endpoints. Reusable until it expires; stored only as a hash.',
  tags: ['Connect tokens'],
  security: apiKey,
  requestBody: { required: true, content: { 'application/json': { schema: schemaRef('ConnectTokenCreate') } } },
  responses: {
    '201': jsonResponse('The token, shown only here.', 'ConnectToken', commonHeaders(true)),
    ...problemResponses(
      [
        'VALIDATION_FAILED',
        'UNAUTHORIZED',
        'FORBIDDEN',
        'PROJECT_SUSPENDED',
        'PAYLOAD_TOO_LARGE',
        'UNSUPPORTED_MEDIA_TYPE',
        'RATE_LIMITED',
        'SERVICE_UNAVAILABLE',
      ],
      true,
    ),
  },
};

/** One Server-Sent Events frame of the stream: its event name, id and the JSON of its data. */
function sseEvent(event: string, dataSchema: string, description: string) {
  return {
    type: 'object',
    description,
    required: ['event', 'id', 'data'],
    properties: {
      event: { const: event },
      id: { type: 'string', description: '`<browser_id>.<sequence>`' },
      data: { $ref: `#/components/schemas/${dataSchema}` },
    },
  };
}

export const openStream: OpenApiOperation = {
  operationId: 'openStream',
  summary: 'Open the event stream of a browser',
  description:
    'A Server-Sent Events stream. The first event is `ready` (data: `ReadyEvent`); each `notification` event ' +
    '(data: `Delivery`) moves its attempt to `sent`. Every event has the id `<browser_id>.<sequence>`; a ' +
    'reconnect with it (`Last-Event-ID` or `last_event_id`) resumes the same browser and writes again every ' +
    'attempt of it that is not final. A `: ping` comment comes every `heartbeat_ms`.',
  tags: ['Browsers'],
  security: noAuth,
  parameters: [param('ConnectToken'), param('LastEventId'), param('LastEventIdQuery')],
  responses: {
    '200': {
      description: 'The event stream: `ready` first, then `notification` events.',
      headers: commonHeaders(false),
      content: {
        'text/event-stream': {
          // The events in order, as OpenAPI 3.1 can say it: each frame's `event`, `id` and the
          // JSON of its `data` (the stream itself is text, framed as Server-Sent Events).
          schema: {
            type: 'array',
            description: 'Events `ready` (data: ReadyEvent) and `notification` (data: Delivery), as SSE frames.',
            items: {
              oneOf: [
                sseEvent('ready', 'ReadyEvent', 'Comes first, once.'),
                sseEvent('notification', 'Delivery', 'One per attempt written to the stream.'),
                {
                  type: 'object',
                  description: 'A change of the recipient’s inbox (docs/inbox.md); no `id`: never replayed.',
                  required: ['event', 'data'],
                  properties: { event: { const: 'inbox' }, data: { $ref: '#/components/schemas/InboxUpdate' } },
                },
              ],
            },
          },
        },
      },
    },
    '204': {
      description: 'The browser of the resume position was disconnected by request: stop for good.',
      headers: commonHeaders(false),
    },
    ...problemResponses(['UNAUTHORIZED', 'PROJECT_SUSPENDED', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE'], false),
  },
};

export const connectBrowser: OpenApiOperation = {
  operationId: 'connectBrowser',
  summary: 'Register a browser or poll without a stream',
  description:
    'Without a body, registers a browser (201). With the browser’s credentials, answers its pending ' +
    'notifications and marks them `sent` (200): the polling fallback where proxies break streams. An unknown, ' +
    'stale or other recipient’s browser gets a new registration (201).',
  tags: ['Browsers'],
  security: noAuth,
  parameters: [param('ConnectToken')],
  requestBody: { required: false, content: jsonOrText('ConnectPoll') },
  responses: {
    '200': jsonResponse('The browser’s pending notifications, now `sent`.', 'DeliveryList', commonHeaders(false)),
    '201': jsonResponse('A new browser; its secret is shown only here.', 'Browser', commonHeaders(false)),
    '204': {
      description: 'The browser was disconnected by request: stop for good.',
      headers: commonHeaders(false),
    },
    ...problemResponses(
      [
        'VALIDATION_FAILED',
        'UNAUTHORIZED',
        'PROJECT_SUSPENDED',
        'PAYLOAD_TOO_LARGE',
        'UNSUPPORTED_MEDIA_TYPE',
        'RATE_LIMITED',
        'SERVICE_UNAVAILABLE',
      ],
      false,
    ),
  },
};

export const postEvents: OpenApiOperation = {
  operationId: 'postEvents',
  summary: 'Post receipts',
  description:
    'Delivery, display, click and dismiss receipts of one browser, 1–100 at a time. Idempotent: the first time ' +
    'is kept. A receipt for an attempt of another browser is ignored; `at` is capped at the server’s time.',
  tags: ['Browsers'],
  security: noAuth,
  requestBody: { required: true, content: jsonOrText('Events') },
  responses: {
    '202': jsonResponse('How many receipts named an attempt of this browser.', 'ReceiptBatch', commonHeaders(false)),
    ...problemResponses(
      [
        'VALIDATION_FAILED',
        'UNAUTHORIZED',
        'PROJECT_SUSPENDED',
        'PAYLOAD_TOO_LARGE',
        'UNSUPPORTED_MEDIA_TYPE',
        'RATE_LIMITED',
        'SERVICE_UNAVAILABLE',
      ],
      false,
    ),
  },
};

export const disconnectBrowser: OpenApiOperation = {
  operationId: 'disconnectBrowser',
  summary: 'Disconnect a browser',
  description:
    'The browser ends for good: its open streams close, its Web Push subscription is removed, and its attempts ' +
    'that are not final become `failed` (`browser_disconnected`). The secret may be sent as JSON, as text/plain JSON, or bare as text/plain, so ' +
    'that `navigator.sendBeacon(url, secret)` works. Disconnecting again is also 204.',
  tags: ['Browsers'],
  security: noAuth,
  parameters: [idParameter('The browser id (`brw_…`).')],
  requestBody: {
    required: true,
    content: {
      'application/json': { schema: schemaRef('Disconnect') },
      'text/plain': {
        schema: { type: 'string', description: 'The browser secret, or the Disconnect object as JSON.' },
      },
    },
  },
  responses: {
    '204': { description: 'Disconnected.', headers: commonHeaders(false) },
    ...problemResponses(
      [
        'VALIDATION_FAILED',
        'UNAUTHORIZED',
        'PROJECT_SUSPENDED',
        'PAYLOAD_TOO_LARGE',
        'RATE_LIMITED',
        'SERVICE_UNAVAILABLE',
      ],
      false,
    ),
  },
};
