import { declareRoute, type RouteDeclaration } from '../pipeline/route.js';
import { connectPoll, openStream } from './connect.js';
import { createConnectTokenRoute } from './connect-token-route.js';
import { disconnectBrowser, postEvents } from './events.js';
import { readNotification, sendNotification } from './notification-routes.js';
import * as operations from './openapi.js';

/** What the contract's routes need to know of the instance. */
export interface DeliveryRouteSettings {
  /** The longest connect token lifetime a request may ask for, in seconds. */
  maxConnectTokenTtlSeconds: number;
}

/**
 * The contract's routes: sending and reading notifications with an API key, connect tokens, and
 * what a page calls (the stream or poll, receipts, disconnect).
 */
export function deliveryRoutes(settings: DeliveryRouteSettings): RouteDeclaration[] {
  return [
    declareRoute({
      path: '/v1/notifications',
      cors: 'api',
      methods: { POST: { handler: sendNotification, operation: operations.createNotification } },
    }),
    declareRoute({
      path: '/v1/notifications/{id}',
      cors: 'api',
      methods: { GET: { handler: readNotification, operation: operations.getNotification } },
    }),
    declareRoute({
      path: '/v1/connect-tokens',
      cors: 'api',
      methods: {
        POST: {
          handler: createConnectTokenRoute(settings.maxConnectTokenTtlSeconds),
          operation: operations.createConnectToken,
        },
      },
    }),
    declareRoute({
      path: '/v1/connect/{token}',
      cors: 'browser',
      methods: {
        GET: { handler: openStream, operation: operations.openStream },
        POST: { handler: connectPoll, operation: operations.connectBrowser },
      },
    }),
    declareRoute({
      path: '/v1/events',
      cors: 'browser',
      methods: { POST: { handler: postEvents, operation: operations.postEvents } },
    }),
    declareRoute({
      path: '/v1/browsers/{id}/disconnect',
      cors: 'browser',
      methods: { POST: { handler: disconnectBrowser, operation: operations.disconnectBrowser } },
    }),
  ];
}
