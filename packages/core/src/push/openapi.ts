import { idParameter, jsonOrText, noAuth, schemaRef } from '../shared/openapi/refs.js';
import { commonHeaders, jsonResponse, problemResponses } from '../shared/openapi/responses.js';
import type { OpenApiOperation } from '../shared/openapi/types.js';

// The OpenAPI operations of the push subscription routes (push/routes.ts declares each with its handler).

export const putPushSubscription: OpenApiOperation = {
  operationId: 'putPushSubscription',
  summary: 'Save a browser’s Web Push subscription',
  description:
    'The browser’s `PushSubscription` (`endpoint`, `keys`, `expiration_time`), made with the server’s ' +
    '`vapid_public_key`, with the browser secret. Replaces the subscription the browser had. The endpoint must be ' +
    'an `https:` URL on a push service the server allows. Notifications then reach the browser by Web Push when ' +
    'no open tab confirmed them within a few seconds. The answer never repeats the keys or the endpoint’s path.',
  tags: ['Browsers'],
  security: noAuth,
  parameters: [idParameter('The browser id (`brw_…`).')],
  requestBody: { required: true, content: { 'application/json': { schema: schemaRef('PushSubscriptionPut') } } },
  responses: {
    '200': jsonResponse('The subscription, saved.', 'PushSubscription', commonHeaders(false)),
    ...problemResponses(
      [
        'VALIDATION_FAILED',
        'UNAUTHORIZED',
        'PROJECT_SUSPENDED',
        'BROWSER_DISCONNECTED',
        'PUSH_NOT_CONFIGURED',
        'PAYLOAD_TOO_LARGE',
        'UNSUPPORTED_MEDIA_TYPE',
        'PUSH_ENDPOINT_NOT_ALLOWED',
        'RATE_LIMITED',
        'SERVICE_UNAVAILABLE',
      ],
      false,
    ),
  },
};

export const deletePushSubscription: OpenApiOperation = {
  operationId: 'deletePushSubscription',
  summary: 'Remove a browser’s Web Push subscription',
  description:
    'The browser receives no more Web Push messages. It stays connected while it has open streams (and is ' +
    'disconnected as stale once it has none). Also 204 when it had no subscription.',
  tags: ['Browsers'],
  security: noAuth,
  parameters: [idParameter('The browser id (`brw_…`).')],
  requestBody: { required: true, content: jsonOrText('PushSubscriptionDelete') },
  responses: {
    '204': { description: 'Removed, or there was none.', headers: commonHeaders(false) },
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
