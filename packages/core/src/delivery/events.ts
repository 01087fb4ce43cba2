import { checkBrowserSecret } from '../pipeline/browser-checks.js';
import type { RouteContext, Services } from '../pipeline/context.js';
import { TidingsError } from '../pipeline/errors.js';
import { readBodyText, readJsonBody } from '../pipeline/http/body.js';
import { jsonReply, reply } from '../pipeline/http/responses.js';
import type { Receipt } from '../ports/records.js';
import type { BrowserStore, DeliveryStore } from '../ports/store.js';
import { isWellFormedBrowserSecret } from '../shared/secrets.js';
import { disconnectBodySchema, eventsBodySchema, parseBody } from './request-schemas.js';

/** The roles of the store these routes use. */
type RouteServices = Services<BrowserStore & DeliveryStore>;

function field(raw: unknown, name: string): unknown {
  return typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)[name] : undefined;
}

/** POST /v1/events: receipts of one browser; another browser's attempts are ignored. */
export async function postEvents(ctx: RouteContext, services: RouteServices): Promise<Response> {
  const { options } = services;
  const raw = await readJsonBody(ctx.request, {
    maxBytes: options.maxBodyBytes,
    accepted: 'json-or-text',
    required: true,
  });
  const lookup = await checkBrowserSecret(
    {
      store: options.store,
      limiter: services.limiter,
      limits: options.limits,
      rateLimitHeaders: options.rateLimitHeaders,
    },
    {
      browserId: field(raw, 'browser_id'),
      secret: field(raw, 'browser_secret'),
      clientIpKey: ctx.clientIpKey,
      now: ctx.now,
    },
  );
  const body = parseBody(eventsBodySchema, raw);
  const receipts: Receipt[] = body.events.map((event) => {
    // A browser's clock may run ahead: a receipt is never later than the server's now.
    const at = event.at ? Math.min(Date.parse(event.at), ctx.now) : ctx.now;
    return { type: event.type, attemptId: event.attempt_id, at };
  });
  // A stream of this instance may have written one of these attempts moments ago: its record
  // (with `via: stream`) is stored first, which a receipt that came before it would leave unsaid.
  await services.streams.sentRecorded(receipts.map((receipt) => receipt.attemptId));
  const applied = await options.store.applyReceipts({ browserId: lookup.browser.id, receipts, now: ctx.now });
  const delivered = applied.deliveredAttemptIds.length;
  if (delivered > 0) options.metrics.attemptsEnded('delivered', null, delivered);
  // What the receipts do beyond the attempts (the inbox's marks), before the 202: a receipt the
  // browser sends again after a failure does it again.
  for (const after of services.hooks.afterReceipts) {
    await after({ browser: lookup.browser, receipts, now: ctx.now, requestId: ctx.requestId });
  }
  return jsonReply(ctx, 202, JSON.stringify({ object: 'receipt_batch', accepted: applied.named }));
}

/** Reads the secret of a disconnect: JSON `{ browser_secret }`, or the bare secret as text/plain (sendBeacon). */
async function disconnectSecret(request: Request, maxBytes: number): Promise<unknown> {
  const text = (await readBodyText(request, maxBytes)).trim();
  if (isWellFormedBrowserSecret(text)) return text;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new TidingsError('VALIDATION_FAILED', 'Send { "browser_secret": "bs_…" } as JSON or text/plain', {
      errors: [{ path: 'browser_secret', message: 'required' }],
    });
  }
  return typeof raw === 'string' ? raw : parseBody(disconnectBodySchema, raw).browser_secret;
}

/** POST /v1/browsers/{id}/disconnect: the browser ends for good; its open attempts fail. */
export async function disconnectBrowser(ctx: RouteContext, services: RouteServices): Promise<Response> {
  const { options } = services;
  const secret = await disconnectSecret(ctx.request, options.maxBodyBytes);
  const lookup = await checkBrowserSecret(
    {
      store: options.store,
      limiter: services.limiter,
      limits: options.limits,
      rateLimitHeaders: options.rateLimitHeaders,
    },
    { browserId: ctx.params.id, secret, clientIpKey: ctx.clientIpKey, now: ctx.now },
  );
  const result = await options.store.disconnectBrowser({
    browserId: lookup.browser.id,
    reason: 'browser_disconnected',
    now: ctx.now,
  });
  if (result.kind === 'disconnected') {
    const failed = result.failedAttemptIds.length;
    if (failed > 0) options.metrics.attemptsEnded('failed', 'browser_disconnected', failed);
    await services.hub.publish([{ type: 'close-browser', browserId: lookup.browser.id }]);
  }
  return reply(ctx, 204, null);
}
