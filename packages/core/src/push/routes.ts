import { parseBody, pushSubscriptionBodySchema, pushUnsubscribeBodySchema } from '../delivery/request-schemas.js';
import { isoTime } from '../delivery/serialize.js';
import { checkBrowserSecret } from '../pipeline/browser-checks.js';
import type { RouteContext, Services } from '../pipeline/context.js';
import { TidingsError } from '../pipeline/errors.js';
import { readJsonBody } from '../pipeline/http/body.js';
import { jsonReply, reply } from '../pipeline/http/responses.js';
import { declareRoute, type RouteDeclaration } from '../pipeline/route.js';
import type { BrowserLookup, PushSubscriptionRecord } from '../ports/records.js';
import type { BrowserStore, PushStore } from '../ports/store.js';
import * as operations from './openapi.js';
import { endpointRefusal, type ResolvedPushOptions } from './options.js';

/** The roles of the store these routes use. */
type RouteServices = Services<BrowserStore & PushStore>;

function field(raw: unknown, name: string): unknown {
  return typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)[name] : undefined;
}

/** The browser's credentials checked as /v1/events checks them (suspension, per-IP limit, 401). */
function checkSecret(ctx: RouteContext, services: RouteServices, raw: unknown): Promise<BrowserLookup> {
  const { options } = services;
  return checkBrowserSecret(
    {
      store: options.store,
      limiter: services.limiter,
      limits: options.limits,
      rateLimitHeaders: options.rateLimitHeaders,
    },
    { browserId: ctx.params.id, secret: field(raw, 'browser_secret'), clientIpKey: ctx.clientIpKey, now: ctx.now },
  );
}

/** The subscription as the API shows it: the push service's host, never the keys or the endpoint's path. */
export function pushSubscriptionObject(subscription: PushSubscriptionRecord) {
  return {
    object: 'push_subscription' as const,
    browser_id: subscription.browserId,
    endpoint_host: new URL(subscription.endpoint).host,
    created_at: isoTime(subscription.createdAt),
    updated_at: isoTime(subscription.updatedAt),
    expires_at: isoTime(subscription.expiresAt),
  };
}

function disconnected(): TidingsError {
  return new TidingsError('BROWSER_DISCONNECTED', 'This browser is disconnected; connect again for a new one');
}

/**
 * PUT /v1/browsers/{id}/push-subscription: saves the browser's Web Push subscription, replacing
 * the one it had, once the endpoint is on a push service this server allows.
 */
function putPushSubscription(push: ResolvedPushOptions | null) {
  return async (ctx: RouteContext, services: RouteServices): Promise<Response> => {
    const { options } = services;
    const raw = await readJsonBody(ctx.request, { maxBytes: options.maxBodyBytes, accepted: 'json', required: true });
    const lookup = await checkSecret(ctx, services, raw);
    if (push === null) {
      throw new TidingsError(
        'PUSH_NOT_CONFIGURED',
        'This server sends no Web Push: it has no VAPID subject configured',
      );
    }
    const body = parseBody(pushSubscriptionBodySchema, raw);
    const refusal = endpointRefusal(body.endpoint, push);
    if (refusal !== null) throw new TidingsError('PUSH_ENDPOINT_NOT_ALLOWED', refusal);
    if (!lookup.browser.connected) throw disconnected();
    const result = await options.store.putPushSubscription({
      browserId: lookup.browser.id,
      endpoint: body.endpoint,
      p256dh: body.keys.p256dh.replace(/=+$/, ''),
      auth: body.keys.auth.replace(/=+$/, ''),
      expiresAt: body.expiration_time ?? null,
      now: ctx.now,
    });
    if (result.kind !== 'saved') throw disconnected();
    return jsonReply(ctx, 200, JSON.stringify(pushSubscriptionObject(result.subscription)));
  };
}

/**
 * DELETE /v1/browsers/{id}/push-subscription: the browser receives no more Web Push messages
 * (204 also when it had no subscription). It stays connected while it has streams.
 */
async function deletePushSubscription(ctx: RouteContext, services: RouteServices): Promise<Response> {
  const { options } = services;
  const raw = await readJsonBody(ctx.request, {
    maxBytes: options.maxBodyBytes,
    accepted: 'json-or-text',
    required: true,
  });
  const lookup = await checkSecret(ctx, services, raw);
  parseBody(pushUnsubscribeBodySchema, raw);
  await options.store.deletePushSubscription({ browserId: lookup.browser.id });
  return reply(ctx, 204, null);
}

/**
 * The routes of a browser's push subscription, with the instance's Web Push settings; with null
 * (an instance without Web Push) a subscription is refused with PUSH_NOT_CONFIGURED once the
 * browser's credentials are checked, and removing one is still answered.
 */
export function pushRoutes(push: ResolvedPushOptions | null): RouteDeclaration[] {
  return [
    declareRoute({
      path: '/v1/browsers/{id}/push-subscription',
      cors: 'browser',
      methods: {
        PUT: { handler: putPushSubscription(push), operation: operations.putPushSubscription },
        DELETE: { handler: deletePushSubscription, operation: operations.deletePushSubscription },
      },
    }),
  ];
}
