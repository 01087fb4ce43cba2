import { connectPoll, openStream } from '../delivery/connect.js';
import { createConnectTokenRoute } from '../delivery/connect-token-route.js';
import { disconnectBrowser, postEvents } from '../delivery/events.js';
import { readNotification, sendNotification } from '../delivery/notification-routes.js';
import {
  browserInboxCounts,
  listBrowserInbox,
  listRecipientInbox,
  markBrowserInbox,
  markRecipientInbox,
  recipientInboxCounts,
} from '../inbox/routes.js';
import { createOpenApiRoute } from '../openapi/route.js';
import type { ResolvedOptions } from '../options.js';
import { deletePushSubscription, putPushSubscription } from '../push/routes.js';
import type { Route } from './router.js';

/** Every route of the API. */
export function createRoutes(options: ResolvedOptions): Route[] {
  return [
    {
      path: '/v1/notifications',
      pattern: /^\/v1\/notifications$/,
      params: [],
      methods: { POST: sendNotification },
      cors: 'api',
    },
    {
      path: '/v1/notifications/{id}',
      pattern: /^\/v1\/notifications\/([^/]+)$/,
      params: ['id'],
      methods: { GET: readNotification },
      cors: 'api',
    },
    {
      path: '/v1/connect-tokens',
      pattern: /^\/v1\/connect-tokens$/,
      params: [],
      methods: { POST: createConnectTokenRoute(options.maxConnectTokenTtlSeconds) },
      cors: 'api',
    },
    {
      path: '/v1/connect/{token}',
      pattern: /^\/v1\/connect\/([^/]+)$/,
      params: ['token'],
      methods: { GET: openStream, POST: connectPoll },
      cors: 'browser',
    },
    { path: '/v1/events', pattern: /^\/v1\/events$/, params: [], methods: { POST: postEvents }, cors: 'browser' },
    {
      path: '/v1/browsers/{id}/disconnect',
      pattern: /^\/v1\/browsers\/([^/]+)\/disconnect$/,
      params: ['id'],
      methods: { POST: disconnectBrowser },
      cors: 'browser',
    },
    {
      path: '/v1/browsers/{id}/push-subscription',
      pattern: /^\/v1\/browsers\/([^/]+)\/push-subscription$/,
      params: ['id'],
      methods: { PUT: putPushSubscription, DELETE: deletePushSubscription },
      cors: 'browser',
    },
    {
      path: '/v1/browsers/{id}/inbox',
      pattern: /^\/v1\/browsers\/([^/]+)\/inbox$/,
      params: ['id'],
      methods: { POST: listBrowserInbox },
      cors: 'browser',
    },
    {
      path: '/v1/browsers/{id}/inbox/counts',
      pattern: /^\/v1\/browsers\/([^/]+)\/inbox\/counts$/,
      params: ['id'],
      methods: { POST: browserInboxCounts },
      cors: 'browser',
    },
    {
      path: '/v1/browsers/{id}/inbox/mark',
      pattern: /^\/v1\/browsers\/([^/]+)\/inbox\/mark$/,
      params: ['id'],
      methods: { POST: markBrowserInbox },
      cors: 'browser',
    },
    {
      path: '/v1/recipients/{recipient}/inbox',
      pattern: /^\/v1\/recipients\/([^/]+)\/inbox$/,
      params: ['recipient'],
      methods: { GET: listRecipientInbox },
      cors: 'api',
    },
    {
      path: '/v1/recipients/{recipient}/inbox/counts',
      pattern: /^\/v1\/recipients\/([^/]+)\/inbox\/counts$/,
      params: ['recipient'],
      methods: { GET: recipientInboxCounts },
      cors: 'api',
    },
    {
      path: '/v1/recipients/{recipient}/inbox/mark',
      pattern: /^\/v1\/recipients\/([^/]+)\/inbox\/mark$/,
      params: ['recipient'],
      methods: { POST: markRecipientInbox },
      cors: 'api',
    },
    {
      path: '/v1/openapi.json',
      pattern: /^\/v1\/openapi\.json$/,
      params: [],
      methods: { GET: createOpenApiRoute({ maxConnectTokenTtlSeconds: options.maxConnectTokenTtlSeconds }) },
      cors: 'browser',
    },
  ];
}
