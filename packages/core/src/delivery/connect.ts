import { checkConnectToken, resolveBrowser } from '../pipeline/browser-checks.js';
import type { RouteContext, Services } from '../pipeline/context.js';
import { TidingsError } from '../pipeline/errors.js';
import { readJsonBody } from '../pipeline/http/body.js';
import { jsonReply, reply, replyHeaders } from '../pipeline/http/responses.js';
import type { BrowserConnectedBy, BrowserRecord, ConnectTokenLookup } from '../ports/records.js';
import type { BrowserStore, DeliveryStore } from '../ports/store.js';
import { newId } from '../shared/ids.js';
import { generateBrowserSecret, hashSecret } from '../shared/secrets.js';
import { connectPollBodySchema, parseBody } from './request-schemas.js';
import { BrowserStream } from './stream/browser-stream.js';
import { deliveryPayload } from './stream/delivery.js';
import { parseResumePosition, SSE_HEADERS, sseEventId } from './stream/sse.js';
import { WebEventSink } from './stream/web-event-sink.js';

/** The roles of the store these routes use. */
type RouteServices = Services<BrowserStore & DeliveryStore>;

function tokenChecks(ctx: RouteContext, services: RouteServices): Promise<ConnectTokenLookup> {
  return checkConnectToken(
    {
      store: services.options.store,
      limiter: services.limiter,
      limits: services.options.limits,
      rateLimitHeaders: services.options.rateLimitHeaders,
    },
    { token: ctx.params.token ?? '', clientIpKey: ctx.clientIpKey, now: ctx.now },
  );
}

/** The most of a browser's `User-Agent` that is kept, in characters. */
const USER_AGENT_LENGTH = 256;

async function registerBrowser(
  ctx: RouteContext,
  services: RouteServices,
  token: ConnectTokenLookup,
  connectedBy: BrowserConnectedBy,
): Promise<{ browser: BrowserRecord; secret: string }> {
  const secret = generateBrowserSecret();
  const userAgent = ctx.request.headers.get('user-agent')?.trim().slice(0, USER_AGENT_LENGTH) || null;
  const browser = await services.options.store.registerBrowser({
    id: newId('brw', ctx.now),
    projectId: token.projectId,
    recipient: token.recipient,
    secretHash: hashSecret(secret),
    now: ctx.now,
    userAgent,
    connectedBy,
  });
  return { browser, secret };
}

/** The key a browser subscribes to Web Push with; null when this server sends none. */
function vapidPublicKeyOf(services: RouteServices): Promise<string | null> {
  const { vapidPublicKey } = services.hooks;
  return vapidPublicKey === null ? Promise.resolve(null) : vapidPublicKey();
}

/** A browser a token may resume: the same project and recipient. */
function belongsToToken(browser: BrowserRecord, token: ConnectTokenLookup): boolean {
  return browser.projectId === token.projectId && browser.recipient === token.recipient;
}

/** The URL a polling browser can switch to, resuming itself rather than registering again. */
function streamUrl(ctx: RouteContext, browserId: string): string {
  return `${ctx.publicBase}/v1/connect/${ctx.params.token}?last_event_id=${sseEventId(browserId, 0)}`;
}

/**
 * GET /v1/connect/{token}: the event stream. A resume position of this recipient's connected
 * browser resumes it; of a browser disconnected by request, 204 (a native EventSource then
 * stops for good); anything else registers a new browser.
 */
export async function openStream(ctx: RouteContext, services: RouteServices): Promise<Response> {
  const token = await tokenChecks(ctx, services);
  const { store } = services.options;
  const position = parseResumePosition(
    ctx.request.headers.get('last-event-id') ?? ctx.url.searchParams.get('last_event_id'),
  );
  let browser: BrowserRecord | null = null;
  if (position) {
    const found = await store.findBrowser(position.browserId);
    if (found && belongsToToken(found.browser, token)) {
      if (found.browser.disconnectReason === 'browser_disconnected') return reply(ctx, 204, null);
      if (found.browser.connected) browser = found.browser;
    }
  }
  let secret: string | null = null;
  if (!browser) ({ browser, secret } = await registerBrowser(ctx, services, token, 'stream'));

  const { streams, options } = services;
  const vapidPublicKey = await vapidPublicKeyOf(services);
  const stream = new BrowserStream({
    browserId: browser.id,
    projectId: browser.projectId,
    owner: streams,
  });
  // Registered, and its browser followed on the hub, before the backlog is read: what is
  // published meanwhile is held by the stream until the backlog is in (`replay`).
  const following = streams.add(stream);
  const retryMs = options.retryMs * (1 + Math.random() / 2);
  stream.open(
    {
      browser_id: browser.id,
      browser_secret: secret,
      recipient: browser.recipient,
      heartbeat_ms: options.heartbeatMs,
      resumed: secret === null,
      vapid_public_key: vapidPublicKey,
    },
    retryMs,
    secret === null && position ? position.sequence : 0,
  );
  try {
    // The backlog is read once the hub confirmed that this instance receives the browser's
    // messages: a send committed before the confirmation is in the read, one after it comes
    // through the hub (a Redis hub resolves anyway when Redis is out of reach; the catch-up
    // then brings what the hub misses).
    await following;
    stream.replay(await store.listDeliveries({ browserId: browser.id, now: ctx.now }));
    if (secret === null) await store.touchBrowsers({ browserIds: [browser.id], now: ctx.now });
  } catch (error) {
    stream.close();
    throw error;
  }
  // The head, the `ready` event and the backlog leave in one write.
  if (ctx.eventStream) {
    const opened = ctx.eventStream.open(200, replyHeaders(ctx, SSE_HEADERS), stream);
    stream.attach(opened.sink);
    return opened.response;
  }
  const sink = new WebEventSink(stream);
  stream.attach(sink);
  return reply(ctx, 200, sink.body, SSE_HEADERS);
}

/**
 * POST /v1/connect/{token}: without a body, registers a browser (201); with the browser's
 * credentials, answers its pending notifications and marks them sent (the polling fallback).
 */
export async function connectPoll(ctx: RouteContext, services: RouteServices): Promise<Response> {
  const token = await tokenChecks(ctx, services);
  const { options } = services;
  const raw = await readJsonBody(ctx.request, {
    maxBytes: options.maxBodyBytes,
    accepted: 'json-or-text',
    required: false,
  });
  if (raw === undefined) return registered(ctx, services, token);
  const body = parseBody(connectPollBodySchema, raw);
  const found = await options.store.findBrowser(body.browser_id);
  if (!found || !belongsToToken(found.browser, token)) return registered(ctx, services, token);
  const resolved = await resolveBrowser(options.store, body.browser_id, body.browser_secret);
  if (!resolved) throw new TidingsError('UNAUTHORIZED', 'The browser secret is not valid');
  const { browser } = resolved;
  if (browser.disconnectReason === 'browser_disconnected') return reply(ctx, 204, null);
  if (!browser.connected) return registered(ctx, services, token);

  const deliveries = await options.store.listDeliveries({ browserId: browser.id, now: ctx.now });
  if (deliveries.length > 0) {
    await options.store.markAttemptsSent({
      attemptIds: deliveries.map((d) => d.attemptId),
      now: ctx.now,
      via: 'poll',
    });
  }
  await options.store.touchBrowsers({ browserIds: [browser.id], now: ctx.now });
  return jsonReply(
    ctx,
    200,
    JSON.stringify({ object: 'list', browser_id: browser.id, notifications: deliveries.map(deliveryPayload) }),
  );
}

async function registered(ctx: RouteContext, services: RouteServices, token: ConnectTokenLookup): Promise<Response> {
  const { browser, secret } = await registerBrowser(ctx, services, token, 'poll');
  return jsonReply(
    ctx,
    201,
    JSON.stringify({
      object: 'browser',
      browser_id: browser.id,
      browser_secret: secret,
      recipient: browser.recipient,
      stream_url: streamUrl(ctx, browser.id),
      vapid_public_key: await vapidPublicKeyOf(services),
    }),
  );
}
