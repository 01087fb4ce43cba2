import type { ResolvedOptions } from '../options.js';
import type { Route } from '../router.js';
import { connectPoll, openStream } from './connect.js';
import { createConnectTokenRoute } from './connect-tokens.js';
import { disconnectBrowser, postEvents } from './events.js';
import { readNotification, sendNotification } from './notifications.js';
import { createOpenApiRoute } from './openapi.js';

/** Every route of the API. */
export function createRoutes(options: ResolvedOptions): Route[] {
  return [
    { pattern: /^\/v1\/notifications$/, params: [], methods: { POST: sendNotification }, cors: 'api' },
    { pattern: /^\/v1\/notifications\/([^/]+)$/, params: ['id'], methods: { GET: readNotification }, cors: 'api' },
    {
      pattern: /^\/v1\/connect-tokens$/,
      params: [],
      methods: { POST: createConnectTokenRoute(options.maxConnectTokenTtlSeconds) },
      cors: 'api',
    },
    {
      pattern: /^\/v1\/connect\/([^/]+)$/,
      params: ['token'],
      methods: { GET: openStream, POST: connectPoll },
      cors: 'browser',
    },
    { pattern: /^\/v1\/events$/, params: [], methods: { POST: postEvents }, cors: 'browser' },
    {
      pattern: /^\/v1\/browsers\/([^/]+)\/disconnect$/,
      params: ['id'],
      methods: { POST: disconnectBrowser },
      cors: 'browser',
    },
    {
      pattern: /^\/v1\/openapi\.json$/,
      params: [],
      methods: { GET: createOpenApiRoute({ maxConnectTokenTtlSeconds: options.maxConnectTokenTtlSeconds }) },
      cors: 'browser',
    },
  ];
}
